import BlazeKit
import BlazeModelFormat
import BlazeRuntime
import Foundation
import Testing

/// The fixtures written by `Tools/fixtures/make_litert_fixtures.py`: LiteRT's outputs for every model on a
/// seeded random input and on a real photo crop (for the attention face mesh, whose MediaPipe custom ops
/// LiteRT lacks, MediaPipe 0.10.14's own TFLite on random and photo pixels).
struct LiteRTCase: CustomStringConvertible, Sendable, Decodable {
    struct Output: Decodable, Sendable {
        var index: Int
        var name: String
        var shape: [Int]
        var file: String
        var maxAbs: Float
    }

    var model: String
    var input: String
    var inputShape: [Int]
    var valueRange: [Float]
    var inputFile: String?
    /// `imageToTensor` for models run in MediaPipe's own TFLite (custom ops): stored pixels as MediaPipe's
    /// ImageToTensorCalculator scales them (the manifest's `imageToTensorInput`); nil for the LiteRT cases.
    var inputFormula: String?
    var outputs: [Output]

    var description: String { "\(model).\(input)" }

    static let directory: URL = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/litert")

    static let all: [LiteRTCase] = {
        struct Manifest: Decodable { var cases: [LiteRTCase] }
        guard let data = try? Data(contentsOf: directory.appendingPathComponent("manifest.json")),
              let manifest = try? JSONDecoder().decode(Manifest.self, from: data) else { return [] }
        return manifest.cases
    }()

    /// The exact input LiteRT saw (see the manifest's `generator` and `photoInput`).
    func makeInput() throws -> [Float] {
        let count = inputShape.reduce(1, *)
        let lo = valueRange[0], hi = valueRange[1]
        if input == "random" && inputFile == nil {
            var x: UInt32 = 0x9E37_79B9
            return (0..<count).map { _ in
                x ^= x << 13; x ^= x >> 17; x ^= x << 5
                let u = Double(x >> 8) / 16_777_216.0
                return Float(Double(lo) + Double(hi - lo) * u)
            }
        }
        let bytes = try [UInt8](Data(contentsOf: LiteRTCase.directory.appendingPathComponent(inputFile!)))
        #expect(bytes.count == count)
        let span = hi - lo
        if inputFormula == "imageToTensor" {
            let scale = Float(Double(span) / 255)
            return bytes.map { p in Float(p) * scale + lo }
        }
        return bytes.map { p in
            let q = Float(p) / Float(255)
            let t = span * q
            return lo + t
        }
    }

    func expected(_ o: Output) throws -> [Float] {
        let data = try Data(contentsOf: LiteRTCase.directory.appendingPathComponent(o.file))
        return data.withUnsafeBytes { raw in
            (0..<(data.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
    }
}

@Suite struct LiteRTParityTests {
    @Test func fixturesCoverEveryBuiltinModelTwice() {
        for m in BuiltinModel.allCases {
            let inputs = Set(LiteRTCase.all.filter { $0.model == m.rawValue }.map(\.input))
            #expect(inputs == ["random", "photo"], "\(m.rawValue): fixtures for \(inputs.sorted())")
        }
    }

    /// The fixtures were made from the originals `KnownModel.all` pins, with the inputs it states.
    @Test func fixturesWereMadeFromTheKnownOriginals() throws {
        struct Source: Decodable { var file: String; var sha256: String }
        struct Manifest: Decodable { var models: [String: Source] }
        let data = try Data(contentsOf: LiteRTCase.directory.appendingPathComponent("manifest.json"))
        let models = try JSONDecoder().decode(Manifest.self, from: data).models
        #expect(Set(models.keys) == Set(KnownModel.all.map(\.name)))
        for known in KnownModel.all {
            #expect(models[known.name]?.file == known.sourceFile, "\(known.name)")
            #expect(models[known.name]?.sha256 == known.sourceSHA256, "\(known.name)")
        }
        for c in LiteRTCase.all {
            let known = try #require(KnownModel.named(c.model), "unknown model \(c.model)")
            #expect(c.inputShape == known.inputShape && c.valueRange == known.inputRange, "\(c)")
        }
    }

    /// The pose landmark models' segmentation logits (`Identity_2`, 256×256) are ill-conditioned:
    /// a float64 evaluation of the same graph differs from LiteRT/XNNPACK by about 6e-4 · max on
    /// them, and LiteRT's own BUILTIN kernels differ from its XNNPACK path by up to 3e-4 · max
    /// (`builtinMaxAbsDiff` in the manifest). No float32 implementation that does not copy
    /// XNNPACK's exact FMA order can hold 1e-4 · max on every one of the 65 536 logits (measured on
    /// the random-input fixture: with BLAS, 1–2 logits just over it; with the packed GEMM and fused
    /// depthwise, none for full and 6 for lite, max 1.4e-4 · max). For these two
    /// outputs only: at least 99.9 % of elements within 1e-4 · max, and all within 3e-4 · max — half
    /// the float64-vs-XNNPACK distance.
    static let illConditionedOutputs: Set<String> = ["pose_landmark_full/Identity_2", "pose_landmark_lite/Identity_2"]

    /// Every output within 1e-4 · max(1, max |LiteRT|) of LiteRT, at 1 and 2 threads (see
    /// ``illConditionedOutputs`` for the one documented exception).
    @Test(arguments: LiteRTCase.all)
    func modelMatchesLiteRT(c: LiteRTCase) throws {
        let model = try #require(BuiltinModel(rawValue: c.model), "unknown model \(c.model)")
        let file = try model.load()
        #expect(file.metadata.input.shape == c.inputShape)
        #expect(file.metadata.input.valueRange == c.valueRange)
        let input = try c.makeInput()
        for threads in [1, 2] {
            let session = try InferenceSession(model: file, options: RuntimeOptions(threadCount: threads))
            #expect(session.outputDescriptions.map(\.shape) == c.outputs.map(\.shape))
            let outputs = try session.run(input)
            for o in c.outputs {
                let want = try c.expected(o)
                let got = outputs[o.index]
                try #require(got.count == want.count, "\(c) output \(o.name): \(got.count) values, expected \(want.count)")
                var maxErr: Float = 0, at = 0
                for i in want.indices where !(abs(got[i] - want[i]) <= maxErr) {
                    maxErr = abs(got[i] - want[i]).isNaN ? .infinity : abs(got[i] - want[i])
                    at = i
                }
                let tolerance = 1e-4 * max(1, o.maxAbs)
                let over = want.indices.filter { !(abs(got[$0] - want[$0]) <= tolerance) }.count
                if Self.illConditionedOutputs.contains("\(c.model)/\(o.name)") {
                    #expect(Double(over) <= 1e-3 * Double(want.count) && maxErr <= 3 * tolerance,
                            "\(c) output \(o.index) '\(o.name)', \(threads) threads: \(over) of \(want.count) elements over \(tolerance), max |Δ| \(maxErr) (bound \(3 * tolerance))")
                    continue
                }
                #expect(maxErr <= tolerance,
                        "\(c) output \(o.index) '\(o.name)' \(o.shape), \(threads) threads: max |Δ| \(maxErr) at \(at) (\(got[at]) vs \(want[at])), tolerance \(tolerance), \(over) of \(want.count) elements over")
            }
        }
    }
}
