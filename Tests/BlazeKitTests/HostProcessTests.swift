import Foundation
import Testing

/// BlazeKit is a good guest: a host program's OpenBLAS thread count and kernel set, environment and signal
/// handlers are as it left them after it creates a landmarker and detects (Tests/HostProcessCheck, run as
/// its own process so no other test's BLAS settings interfere).
@Suite("A host process keeps its settings")
struct HostProcessTests {
    @Test("openblas_set_num_threads(2), an environment variable and a SIGPIPE handler survive PoseLandmarker; a one-thread HandLandmarker uses one core")
    func hostSettingsSurvive() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("HostProcessCheck")
        let process = Process()
        process.executableURL = binary
        process.arguments = [fixtures.appendingPathComponent("pose/coco_000000040083.png").path,
                             fixtures.appendingPathComponent("hand/onehand10k_33.png").path]
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "OPENBLAS_CORETYPE")
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        #expect(values["poses"] == "1", "the landmarker ran: \(output)")
        #expect(values["hands"] == "1", "the hand landmarker ran: \(output)")
        // A one-thread landmarker used one core: 1.0 measured; 2.0 when its fully connected layers woke
        // OpenBLAS's threads, which then spun on the other core (LayoutKernel.fullyConnected).
        let cpuPerWall = Double(values["oneThread.cpuPerWall"] ?? "") ?? .infinity
        #expect(cpuPerWall < 1.3, "CPU time per wall time of a one-thread hand landmarker: \(cpuPerWall)")
        #expect(values["threads.before"] == "2")
        #expect(values["threads.after"] == "2", "OpenBLAS's thread count")
        #expect(values["corename.after"] == values["corename.before"], "OpenBLAS's kernel set")
        #expect(values["sigpipe.after"] == values["sigpipe.before"], "the SIGPIPE handler")
        #expect(values["environment.unchanged"] == "true")
        #expect(values["HOST_SETTING"] == "kept")
        #expect(values["OPENBLAS_CORETYPE"] == "unset")
    }
}
