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
        abstract: "Times BLAS against the packed GEMM tiles, the depthwise paths, and the narrow and sparse kernels against the tiles on Blaze shapes (1 thread).")

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

    @Option(help: "Which kernels: all, gemm, depthwise, narrow, sparse, resize, pool.") var only = "all"

    /// (height, width, in channels, out channels, kernel) of convolutions with at most 8 outputs.
    static let narrowShapes: [(Int, Int, Int, Int, Int)] = [
        (256, 256, 8, 1, 3), (2, 2, 288, 1, 2), (256, 256, 8, 8, 1), (128, 128, 16, 8, 1), (64, 64, 48, 8, 1), (28, 28, 24, 2, 1), (12, 12, 256, 6, 1),
    ]
    /// (input height, width, channels) of the ×2 bilinear resizes in pose_landmark's heads.
    static let resizeShapes: [(Int, Int, Int)] = [(128, 128, 8), (64, 64, 8), (32, 32, 48), (16, 16, 48)]
    /// (pixels, in channels, out channels) of 1×1 convolutions, run at several shares of zero weights.
    static let sparseShapes: [(Int, Int, Int)] = [
        (12544, 16, 64), (3136, 24, 144), (3136, 144, 24), (784, 48, 192), (784, 192, 48), (196, 96, 288), (49, 288, 288),
    ]

    func run() throws {
        print("# 1 thread; GFLOP/s as 2·M·N·K (GEMM) or 2·outH·outW·C·k² (depthwise) over the median time")
        if ["all", "gemm"].contains(only) { for (m, n, k) in Self.gemmShapes { gemm(m: m, n: n, k: k) } }
        if ["all", "depthwise"].contains(only) {
            for (hw, c, k, s) in Self.depthwiseShapes { depthwise(size: hw, channels: c, kernel: k, stride: s) }
        }
        if ["all", "narrow"].contains(only) { for (h, w, ci, co, k) in Self.narrowShapes { narrow(h, w, ci, co, k) } }
        if ["all", "resize"].contains(only) { for (h, w, c) in Self.resizeShapes { resize(h, w, c) } }
        if ["all", "pool"].contains(only) { maxPool(112, 16) }
        if ["all", "sparse"].contains(only) {
            for (m, k, n) in Self.sparseShapes { for z in [0.5, 0.74, 0.9] { sparse(m: m, k: k, n: n, zeros: z) } }
        }
    }

    /// Dense-rate GFLOP/s (2·outH·outW·Cin·Cout·k² over the median) of the narrow kernel against the GEMM tiles.
    private func narrow(_ h: Int, _ w: Int, _ cin: Int, _ cout: Int, _ k: Int) {
        let window = SpatialWindow(inputHeight: h, inputWidth: w, kernelHeight: k, kernelWidth: k,
                                   padTop: (k - 1) / 2, padLeft: (k - 1) / 2, padBottom: (k - 1) / 2, padRight: (k - 1) / 2)
        let input = AlignedFloats((0..<(h * w * cin)).map { _ in Float.random(in: -1...1) })
        let weights = (0..<(cout * k * k * cin)).map { _ in Float.random(in: -1...1) }
        let bias = [Float](repeating: 0.1, count: cout)
        let pixels = window.outputHeight * window.outputWidth
        let out = AlignedFloats([Float](repeating: 0, count: pixels * cout))
        let flops = 2.0 * Double(pixels * cout * k * k * cin)
        var line = "narrow \(h)x\(w)x\(cin)->\(cout) k\(k):"
        for tile in GEMMTile.allCases where tile.isSupported {
            let packed = PackedGEMMWeights(weights: weights, bias: bias, outputs: cout, depth: k * k * cin, tile: tile,
                                           window: window.isPointwise ? nil : window, inChannels: cin)
            let block = Conv2DKernel.im2colPixelBlock(window: window, inChannels: cin, budgetFloats: 1 << 13)
            let ws = AlignedFloats([Float](repeating: 0, count: Conv2DKernel.im2colWorkspaceFloats(window: window, inChannels: cin, pixelBlock: block)))
            let t = time {
                if window.isPointwise {
                    Conv2DKernel.packed1x1(input: input.pointer, weights: packed, output: out.pointer, pixels: 0..<pixels, clamp: .none)
                } else {
                    Conv2DKernel.im2colPacked(input: input.pointer, weights: packed, output: out.pointer, window: window, inChannels: cin,
                                              clamp: .none, pixels: 0..<pixels, pixelBlock: block, workspace: ws.pointer)
                }
            }
            line += "  gemm \(tile.rawValue) \(fmt(flops / t.median / 1e9))"
        }
        for wide in CPUFeatures.hasAVX512 ? [false, true] : [false] {
            let packed = PixelConvWeights(weights: weights, bias: bias, outputs: cout, window: window, inChannels: cin, layout: .narrow, wide: wide)
            let scratch = AlignedFloats([Float](repeating: 0, count: packed.scratchFloats))
            let t = time {
                NarrowConv2DKernel.run(input: input.pointer, weights: packed, output: out.pointer,
                                       rows: 0..<(window.isPointwise ? pixels : window.outputHeight), clamp: .none, scratch: scratch.pointer)
            }
            line += "  narrow-\(packed.lanes)px \(fmt(flops / t.median / 1e9)) (\(fmt(t.median * 1e3)) ms)"
        }
        print(line)
    }

    /// Dense-rate GFLOP/s (2·M·N·K over the median, zeros counted) of the sparse kernel against the GEMM tiles.
    private func sparse(m: Int, k: Int, n: Int, zeros: Double) {
        let a = AlignedFloats((0..<(m * k)).map { _ in Float.random(in: -1...1) })
        let w = (0..<(n * k)).map { _ in Double.random(in: 0..<1) < zeros ? 0 : Float.random(in: -1...1) }
        let bias = [Float](repeating: 0.1, count: n)
        let c = AlignedFloats([Float](repeating: 0, count: m * n))
        let flops = 2.0 * Double(m * n * k)
        let window = SpatialWindow(inputHeight: 1, inputWidth: m, kernelHeight: 1, kernelWidth: 1)
        var line = "sparse M=\(m) K=\(k) N=\(n) zeros \(Int(zeros * 100))%:"
        for tile in GEMMTile.allCases where tile.isSupported {
            let packed = PackedGEMMWeights(weights: w, bias: bias, outputs: n, depth: k, tile: tile)
            let t = time { Conv2DKernel.packed1x1(input: a.pointer, weights: packed, output: c.pointer, pixels: 0..<m, clamp: .none) }
            line += "  gemm \(tile.rawValue) \(fmt(flops / t.median / 1e9))"
        }
        for wide in CPUFeatures.hasAVX512 ? [false, true] : [false] {
            let packed = PixelConvWeights(weights: w, bias: bias, outputs: n, window: window, inChannels: k, layout: .sparse, wide: wide)
            let scratch = AlignedFloats([Float](repeating: 0, count: packed.scratchFloats))
            let t = time {
                SparseConv1x1Kernel.run(input: a.pointer, weights: packed, output: c.pointer, pixels: 0..<m, clamp: .none, scratch: scratch.pointer)
            }
            line += "  sparse-\(packed.lanes)px \(fmt(flops / t.median / 1e9))"
        }
        print(line)
    }

    /// Milliseconds of a ×2 half-pixel bilinear resize: the whole-vector path against the any-channel path.
    private func resize(_ h: Int, _ w: Int, _ c: Int) {
        let input = [Float](repeating: 0.25, count: h * w * c)
        var output = [Float](repeating: 0, count: 4 * h * w * c)
        let rows = BilinearAxis(inputSize: h, outputSize: 2 * h, alignCorners: false, halfPixelCenters: true)
        let columns = BilinearAxis(inputSize: w, outputSize: 2 * w, alignCorners: false, halfPixelCenters: true)
        let vectors = time {
            ResizeBilinearKernel.direct(input: input, output: &output, inputWidth: w, channels: c, rows: rows, columns: columns,
                                        outputRows: 0..<(2 * h))
        }
        let any = time {
            ResizeBilinearKernel.directAnyChannels(input: input, output: &output, inputWidth: w, channels: c, rows: rows,
                                                   columns: columns, outputRows: 0..<(2 * h))
        }
        print("resize \(h)x\(w)x\(c) -> \(2 * h)x\(2 * w):  vectors \(String(format: "%.3f", vectors.median * 1000)) ms"
              + "  any-channels \(String(format: "%.3f", any.median * 1000)) ms")
    }

    /// Milliseconds of hand_landmark_lite's 2×2 stride-2 max pooling on a `size`² × `channels` map.
    private func maxPool(_ size: Int, _ channels: Int) {
        let input = [Float](repeating: 0.25, count: size * size * channels)
        var output = [Float](repeating: 0, count: size * size * channels / 4)
        let window = SpatialWindow(inputHeight: size, inputWidth: size, kernelHeight: 2, kernelWidth: 2, strideHeight: 2, strideWidth: 2)
        let t = time {
            MaxPoolKernel.direct(input: input, output: &output, window: window, channels: channels, clamp: .none,
                                 rows: 0..<window.outputHeight)
        }
        print("max pool 2x2/2 \(size)x\(size)x\(channels): \(String(format: "%.3f", t.median * 1000)) ms")
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
