// Threads and a lock on POSIX threads directly, so the engine needs nothing of Foundation's `Thread` and `NSLock`
// (which would link full Foundation, and with it ICU's data, into libblazekit.so).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts a detached thread with a stack of `stackSize` bytes that runs `body` once. A thread that cannot be
/// created stops the process, as Foundation's `Thread.start()` does.
package func startDetachedThread(stackSize: Int, _ body: @escaping @Sendable () -> Void) {
    final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, stackSize)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    #if canImport(Darwin)
    var thread: pthread_t?
    #else
    var thread = pthread_t()
    #endif
    let status = pthread_create(&thread, &attributes, { context in
        let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
        box.body()
        return nil
    }, context)
    if status != 0 {
        Unmanaged<Box>.fromOpaque(context).release()
        fatalError("pthread_create failed: \(String(cString: strerror(status)))")
    }
}

/// A mutual-exclusion lock (pthread mutex) with `NSLock`'s `lock()` and `unlock()`; `recursive`, one the thread
/// that holds it may take again (`NSRecursiveLock`).
package final class MutexLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init(recursive: Bool = false) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        defer { pthread_mutexattr_destroy(&attributes) }
        if recursive { pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE)) }
        pthread_mutex_init(mutex, &attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }

    package func unlock() { pthread_mutex_unlock(mutex) }
}
