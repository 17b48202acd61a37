import ArgumentParser
import BlazeKernels
import CBLAS
import Foundation

/// `blaze-bench kernels`: the hand-written kernels against their alternatives on the shapes the Blaze
/// networks run — `cblas_sgemm` (bias and clamp in separate passes, as the BLAS variant does) against
/// each supported packed-GEMM tile, and the depthwise kernel's 8-channel path against its AVX-512
/// 16-channel blocks. These numbers decide the defaults (``ConvolutionGEMM/automatic``).
struct KernelBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kernels",
        abstract: "Times BLAS against the packed GEMM tiles and the depthwise paths on Blaze shapes (1 thread).")

    @Option(help: "Timed runs per kernel (best and median are printed).") var runs = 50

    /// (pixels M, outputs N, depth K) of 1×1 convolutions in the seven models.
    static let gemmShapes: [(Int, Int, Int)] = [
        (12544, 64, 16), (12544, 16, 24), (3136, 144, 24), (9216, 32, 32), (2304, 64, 64),
        (784, 192, 96), (196, 672, 112), (196, 192, 1152), (49, 1152, 192), (576, 128, 256),
    ]
    /// (height = width, channels, kernel, stride) of depthwise convolutions in the seven models.
    static let depthwiseShapes: [(Int, Int, Int, Int)] = [
        (112, 24, 3, 1), (96, 32, 5, 1), (56, 96, 3, 1), (48, 64, 5, 1), (28, 144, 5, 1), (14, 384, 5, 1), (112, 64, 3, 2),
    ]

    func run() throws {
        print("# 1 thread; GFLOP/s as 2·M·N·K (GEMM) or 2·outH·outW·C·k² (depthwise) over the median time")
        for (m, n, k) in Self.gemmShapes { gemm(m: m, n: n, k: k) }
        for (hw, c, k, s) in Self.depthwiseShapes { depthwise(size: hw, channels: c, kernel: k, stride: s) }
    }

    private func time(_ body: () -> Void) -> (median: Double, best: Double) {
        for _ in 0..<5 { body() }
        var t: [Double] = []
        for _ in 0..<runs {
            let t0 = DispatchTime.now().uptimeNanoseconds
            body()
            t.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
        }
        t.sort()
        return (t[t.count / 2], t[0])
    }

    private func gemm(m: Int, n: Int, k: Int) {
        var rng = SystemRandomNumberGenerator()
        let a = AlignedFloats((0..<(m * k)).map { _ in Float.random(in: -1...1, using: &rng) })
        let w = (0..<(n * k)).map { _ in Float.random(in: -1...1, using: &rng) }
        let bias = (0..<n).map { _ in Float.random(in: -1...1, using: &rng) }
        let c = AlignedFloats([Float](repeating: 0, count: m * n))
        let flops = 2.0 * Double(m * n * k)
        var line = "gemm M=\(m) N=\(n) K=\(k):"
        openblas_set_num_threads(1)
        let blas = time {
            Conv2DKernel.gemm1x1(input: a.pointer, weights: w, bias: bias, output: c.pointer, pixels: 0..<m, inChannels: k, outChannels: n,
                                 clamp: ClampBounds(min: 0, max: 6))
        }
        line += "  blas \(fmt(flops / blas.median / 1e9))"
        for tile in GEMMTile.allCases where tile.isSupported {
            let packed = PackedGEMMWeights(weights: w, bias: bias, outputs: n, depth: k, tile: tile)
            let t = time {
                Conv2DKernel.packed1x1(input: a.pointer, weights: packed, output: c.pointer, pixels: 0..<m, clamp: ClampBounds(min: 0, max: 6))
            }
            line += "  \(tile.rawValue) \(fmt(flops / t.median / 1e9))"
        }
        print(line)
    }

    private func depthwise(size: Int, channels: Int, kernel: Int, stride: Int) {
        let pad = kernel / 2
        let window = SpatialWindow(inputHeight: size, inputWidth: size, kernelHeight: kernel, kernelWidth: kernel,
                                   strideHeight: stride, strideWidth: stride, padTop: stride == 1 ? pad : 0,
                                   padLeft: stride == 1 ? pad : 0, padBottom: pad, padRight: pad)
        // 64-byte aligned, as the session's arena is.
        let input = AlignedFloats((0..<(size * size * channels)).map { _ in Float.random(in: -1...1) })
        let weights = (0..<(kernel * kernel * channels)).map { _ in Float.random(in: -1...1) }
        let bias = [Float](repeating: 0.1, count: channels)
        let out = AlignedFloats([Float](repeating: 0, count: window.outputHeight * window.outputWidth * channels))
        let flops = 2.0 * Double(window.outputHeight * window.outputWidth * channels * kernel * kernel)
        var line = "depthwise \(size)x\(size)x\(channels) k\(kernel) s\(stride):"
        for wide in CPUFeatures.hasAVX512 ? [false, true] : [false] {
            let t = time {
                DepthwiseConv2DKernel.direct(input: input.pointer, weights: weights, bias: bias, output: out.pointer, window: window,
                                             channels: channels, clamp: .none, rows: 0..<window.outputHeight, wide: wide)
            }
            line += "  \(wide ? "avx512-16" : "simd8") \(fmt(flops / t.median / 1e9)) (best \(fmt(flops / t.best / 1e9)))"
        }
        print(line)
    }
}

/// A 64-byte aligned copy of some floats, freed with the object.
final class AlignedFloats {
    let pointer: UnsafeMutablePointer<Float>
    init(_ values: [Float]) {
        pointer = UnsafeMutableRawPointer.allocate(byteCount: max(values.count, 1) * 4, alignment: 64)
            .bindMemory(to: Float.self, capacity: max(values.count, 1))
        pointer.initialize(from: values, count: values.count)
    }
    deinit { pointer.deallocate() }
}
