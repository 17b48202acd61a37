import BlazeImage
import BlazeKernels
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The "timestamps must strictly increase" rule of MediaPipe's task runner (`task_runner.cc`), for
/// video frames and live-stream submissions alike. Thread-safe.
final class IncreasingTimestamps: @unchecked Sendable {
    private let lock = MutexLock()
    private var last: Int?

    /// Accepts `timestamp` or throws ``TaskError/nonIncreasingTimestamp(method:previous:actual:)``.
    func accept(_ timestamp: Int, method: String) throws {
        lock.lock()
        defer { lock.unlock() }
        if let last, timestamp <= last {
            throw TaskError.nonIncreasingTimestamp(method: method, previous: last, actual: timestamp)
        }
        last = timestamp
    }
}

/// Live-stream scheduling as MediaPipe's `FlowLimiterCalculator` with `max_in_flight = 1`,
/// `max_in_queue = 1` does it: one frame is processed at a time on a private serial queue and at most
/// one waits; a newer frame replaces the waiting one, which is dropped without a callback.
///
/// `process` runs on the work queue and delivers its callback on the queue it is given (serial, so in
/// timestamp order); after
/// ``close()`` waiting frames are dropped and nothing new starts. Nothing here blocks the caller.
final class LiveStreamScheduler: @unchecked Sendable {
    struct Frame {
        var image: Image
        var timestamp: Int
    }

    /// Where results are delivered, in timestamp order (serial).
    let callbackQueue: DispatchQueue
    private let workQueue: DispatchQueue
    private let process: @Sendable (Frame, DispatchQueue) -> Void
    private let lock = MutexLock()
    private var busy = false
    private var waiting: Frame?
    private var closed = false
    private(set) var droppedFrameCount = 0

    private static let workQueueKey = DispatchSpecificKey<ObjectIdentifier>()

    init(label: String, process: @escaping @Sendable (Frame, DispatchQueue) -> Void) {
        workQueue = DispatchQueue(label: "\(label).work", qos: .userInitiated)
        callbackQueue = DispatchQueue(label: "\(label).callbacks")
        self.process = process
        workQueue.setSpecific(key: Self.workQueueKey, value: ObjectIdentifier(self))
    }

    /// Queues a frame; returns at once.
    func submit(_ frame: Frame) {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        if busy {
            if waiting != nil { droppedFrameCount += 1 }
            waiting = frame
            return
        }
        busy = true
        start(frame)
    }

    private func start(_ frame: Frame) {
        workQueue.async { [self] in
            process(frame, callbackQueue)
            lock.lock()
            defer { lock.unlock() }
            if !closed, let next = waiting {
                waiting = nil
                start(next)
            } else {
                waiting = nil
                busy = false
            }
        }
    }

    /// Drops the waiting frame, refuses new ones and waits for the frame being processed, if any, to
    /// finish (so no inference outlives its task, e.g. into process exit). Its callback, if still due, is
    /// left to the callback queue. Called from the work queue itself it does not wait.
    func close() {
        lock.lock()
        closed = true
        waiting = nil
        lock.unlock()
        if DispatchQueue.getSpecific(key: Self.workQueueKey) != ObjectIdentifier(self) {
            workQueue.sync {}
        }
    }
}

/// A weak reference that can cross queues (the live-stream callbacks must not keep the task or its
/// delegate alive).
final class WeakReference<T: AnyObject>: @unchecked Sendable {
    private(set) weak var value: T?
    init(_ value: T?) { self.value = value }
}
