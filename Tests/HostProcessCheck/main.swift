// A host program that embeds BlazeKit beside its own use of OpenBLAS, as a C++ service or a Python
// extension would: it sets OpenBLAS's thread count and an environment variable, installs a signal handler,
// then creates a PoseLandmarker and detects. It prints what it finds before and after, one `key=value` per
// line, for Tests/BlazeKitTests/HostProcessTests.swift to check that BlazeKit changed none of it.
import BlazeKit
import CBLAS
import Foundation
#if canImport(Glibc)
import Glibc
#endif

func corename() -> String {
    guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "openblas_get_corename") else { return "unknown" }
    let f = unsafeBitCast(symbol, to: (@convention(c) () -> UnsafeMutablePointer<CChar>?).self)
    return f().map { String(cString: $0) } ?? "unknown"
}

func sigpipeHandler() -> UInt {
    var action = sigaction()
    sigaction(SIGPIPE, nil, &action)
    return unsafeBitCast(action.__sigaction_handler.sa_handler, to: UInt.self)
}

guard CommandLine.arguments.count == 3 else {
    FileHandle.standardError.write("usage: HostProcessCheck POSE_PHOTO HAND_PHOTO\n".data(using: .utf8)!)
    exit(2)
}
openblas_set_num_threads(2)
setenv("HOST_SETTING", "kept", 1)
signal(SIGPIPE, SIG_IGN)
let environmentBefore = ProcessInfo.processInfo.environment
print("threads.before=\(openblas_get_num_threads())")
print("corename.before=\(corename())")
print("sigpipe.before=\(sigpipeHandler())")

let options = PoseLandmarkerOptions()
options.baseOptions.threadCount = 2
do {
    let landmarker = try PoseLandmarker(options: options)
    let result = try landmarker.detect(image: MPImage(contentsOfFile: CommandLine.arguments[1]))
    print("poses=\(result.landmarks.count)")
} catch {
    print("error=\(error)")
}
// A landmarker asked for one thread uses one core: its process's CPU time over the detections is about their
// wall time, however many threads OpenBLAS was given (its threads, once woken, spin on the other cores).
do {
    let handOptions = HandLandmarkerOptions()
    handOptions.baseOptions.threadCount = 1
    let landmarker = try HandLandmarker(options: handOptions)
    let image = try MPImage(contentsOfFile: CommandLine.arguments[2])
    _ = try landmarker.detect(image: image)
    func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    let cpu0 = cpuSeconds(), wall0 = Date()
    var hands = 0
    for _ in 0..<30 { hands = try landmarker.detect(image: image).landmarks.count }
    let wall = Date().timeIntervalSince(wall0), cpu = cpuSeconds() - cpu0
    print("hands=\(hands)")
    print("oneThread.cpuPerWall=\(cpu / wall)")
} catch {
    print("error=\(error)")
}
print("threads.after=\(openblas_get_num_threads())")
print("corename.after=\(corename())")
print("sigpipe.after=\(sigpipeHandler())")
print("environment.unchanged=\(ProcessInfo.processInfo.environment == environmentBefore)")
print("HOST_SETTING=\(String(cString: getenv("HOST_SETTING")))")
print("OPENBLAS_CORETYPE=\(getenv("OPENBLAS_CORETYPE").map { String(cString: $0) } ?? "unset")")
