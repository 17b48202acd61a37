import Foundation
import Testing

/// `import BlazeKit` gives the task API and nothing of the engine: a program that ports MediaPipe code
/// compiles, and one that names an engine type does not. Type-checks two small files against the modules
/// this test was built with, with the compiler that built it.
@Suite("What import BlazeKit gives")
struct PublicSurfaceTests {
    /// Typechecks `source` against the build's modules; returns the compiler's exit status and output.
    private func typecheck(_ source: String, filePath: String = #filePath) throws -> (status: Int32, output: String) {
        let repo = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // The test bundle sits in the build directory (…/debug/BlazeKitPackageTests.xctest), beside Modules/.
        let buildDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let modules = buildDirectory.appendingPathComponent("Modules")
        guard FileManager.default.fileExists(atPath: modules.appendingPathComponent("BlazeKit.swiftmodule").path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: modules.path])
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("surface-\(UUID().uuidString).swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let cModules = ["CBLAS", "CPNG", "CJPEG", "CZlib", "CFFmpeg", "CPrefetch/include"]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-typecheck", "-I", modules.path]
            + cModules.flatMap { ["-I", repo.appendingPathComponent("Sources/\($0)").path] } + [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    @Test("MediaPipe-style code compiles with import BlazeKit alone")
    func taskAPICompiles() throws {
        let (status, output) = try typecheck("""
            import BlazeKit
            let options = PoseLandmarkerOptions()
            options.baseOptions.modelAssetPath = "pose_landmarker_full.task"
            options.runningMode = .video
            options.numPoses = 2
            options.baseOptions.kernelPlanning = .fixed
            let planning: Planning = options.baseOptions.kernelPlanning
            func draw(_ result: PoseLandmarkerResult) -> [NormalizedLandmark] { result.landmarks.first ?? [] }
            let hands = HandLandmarkerOptions()
            hands.minHandDetectionConfidence = 0.4
            let edges = PoseSkeleton.connections.count + HandSkeleton.connections.count
            let image = try? MPImage(contentsOfFile: "photo.jpg")
            let error: TaskError = .invalidOption(name: "numPoses", expected: "> 0", actual: "0")
            _ = (edges, image, error, BuiltinModel.poseDetection, planning)
            """)
        #expect(status == 0, "\(output)")
    }

    @Test("Engine types are not visible through import BlazeKit", arguments: [
        "let s: InferenceSession? = nil",
        "let c = CropSampler.self",
        "let n = NonMaxSuppression.self",
        "let w: WorkerPool? = nil",
        "let r: NormalizedRect? = nil",
    ])
    func engineTypesAreHidden(line: String) throws {
        let (status, output) = try typecheck("import BlazeKit\n\(line)\n")
        #expect(status != 0, "compiled: \(line)")
        #expect(output.contains("cannot find"), "\(output)")
    }
}
