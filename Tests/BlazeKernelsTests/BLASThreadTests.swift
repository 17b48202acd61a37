import BlazeKernels
import Foundation
import Testing

/// OpenBLAS runs BlazeKit's calls on the calling thread and keeps no thread server of its own.
@Suite struct BLASThreadTests {
    /// `blas_server_avail` of the loaded OpenBLAS (nil for a BLAS without the symbol).
    static func serverRunning() -> Bool? {
        guard let handle = dlopen(nil, RTLD_NOW), let p = dlsym(handle, "blas_server_avail") else { return nil }
        return p.assumingMemoryBound(to: Int32.self).pointee != 0
    }

    @Test func blasRunsOnTheCallingThreadWithNoServerSpinning() throws {
        let how = BLASKernelSelection.useCallerThreadOnly()
        #expect(BLASKernelSelection.useCallerThreadOnly() == how, "once per process")
        if let running = Self.serverRunning() {
            #expect(!running, "OpenBLAS's thread server still runs after \(how)")
        }
        // A GEMM large enough for OpenBLAS to split over threads if it could, against the plain twin.
        let pixels = 48 * 48, inChannels = 64, outChannels = 96
        var random = SeededRandom(seed: 11)
        let input = random.array(pixels * inChannels), weights = random.array(outChannels * inChannels)
        let bias = random.array(outChannels)
        var fast = [Float](repeating: 0, count: pixels * outChannels), plain = fast
        let window = SpatialWindow(inputHeight: 48, inputWidth: 48, kernelHeight: 1, kernelWidth: 1)
        Conv2DKernel.gemm1x1(input: input, weights: weights, bias: bias, output: &fast, pixels: 0..<pixels,
                             inChannels: inChannels, outChannels: outChannels, clamp: .none)
        Conv2DKernel.reference(input: input, weights: weights, bias: bias, output: &plain, window: window,
                               inChannels: inChannels, outChannels: outChannels, clamp: .none)
        expectClose(fast, plain, rtol: 1e-4, atol: 1e-4, "cblas 1×1 after useCallerThreadOnly")
        if let running = Self.serverRunning() {
            #expect(!running, "a BLAS call restarted OpenBLAS's thread server")
        }
    }
}
