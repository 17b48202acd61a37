// swift-tools-version: 6.2
// 6.2 is the first tools version whose packages may carry the codegen flags below and still be
// used as a versioned dependency (SwiftPM stopped rejecting `unsafeFlags` in dependencies in 6.2).
import PackageDescription

// Vector codegen for the kernels. Swift's default x86-64 target is SSE2 without FMA, where
// `SIMD8<Float>` runs on 128-bit halves and `addingProduct` is a library call. The kernels are built
// for x86-64-v3 (AVX2 + FMA, `haswell`), which every machine this project supports has; the AVX-512
// GEMM tile lives in its own module built for `skylake-avx512` and runs only on CPUs that report
// AVX-512 (checked at run time). Set BLAZEKIT_PORTABLE=1 to build for baseline x86-64 instead: the
// AVX-512 tile still runs where the CPU has it, and BLAS does the rest.
let portable = Context.environment["BLAZEKIT_PORTABLE"] != nil
#if arch(x86_64)
let vectorCodegen: [SwiftSetting] = portable ? [] : [.unsafeFlags(["-target-cpu", "haswell"]), .define("BLAZEKIT_FMA")]
let avx512Codegen: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "skylake-avx512"])]
#elseif arch(arm64)
let vectorCodegen: [SwiftSetting] = [.define("BLAZEKIT_FMA")]   // NEON always has fused multiply-add
let avx512Codegen: [SwiftSetting] = []
#else
let vectorCodegen: [SwiftSetting] = []
let avx512Codegen: [SwiftSetting] = []
#endif

// The compute-heavy modules are optimized in debug builds too, so `swift test` runs the networks at a
// usable speed (a -Onone pose detector takes seconds per photo). Set BLAZEKIT_DEBUG_KERNELS=1 to step
// through them unoptimized.
let optimizedInDebug: [SwiftSetting] = Context.environment["BLAZEKIT_DEBUG_KERNELS"] != nil ? []
    : [.unsafeFlags(["-O"], .when(configuration: .debug))]

// The Python wheel's build (Python/setup.py) sets BLAZEKIT_MODELS_BESIDE_LIBRARY=1: see the BlazeModels target.
let modelsBesideLibrary = Context.environment["BLAZEKIT_MODELS_BESIDE_LIBRARY"] != nil

let package = Package(
    name: "BlazeKit",
    products: [
        .library(name: "BlazeKit", targets: ["BlazeKit"]),
        .library(name: "BlazeMLKit", targets: ["BlazeMLKit"]),
        .library(name: "BlazeVision", targets: ["BlazeVision"]),
        .library(name: "BlazeVideo", targets: ["BlazeVideo"]),
        // The engine, for programs that go below the task API (each imported explicitly; `import BlazeKit`
        // does not re-export them).
        .library(name: "BlazeRuntime", targets: ["BlazeRuntime"]),
        .library(name: "BlazeModelFormat", targets: ["BlazeModelFormat"]),
        .library(name: "BlazeStages", targets: ["BlazeStages"]),
        .library(name: "BlazeTracking", targets: ["BlazeTracking"]),
        .library(name: "BlazeImage", targets: ["BlazeImage"]),
        .library(name: "BlazeKernels", targets: ["BlazeKernels"]),
        // The C ABI: libblazekit.so and Sources/CBlazeKit/include/blazekit.h.
        .library(name: "blazekit", type: .dynamic, targets: ["BlazeKitC"]),
        .executable(name: "blaze", targets: ["blaze"]),
        .executable(name: "blaze-convert", targets: ["blaze-convert"]),
        .executable(name: "blaze-bench", targets: ["blaze-bench"]),
        .executable(name: "blaze-soak", targets: ["blaze-soak"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation` for the DocC catalogs (a command plugin only; nothing links it).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // MARK: - System libraries
        .systemLibrary(name: "CBLAS", pkgConfig: "openblas", providers: [.apt(["libopenblas-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        // FFmpeg's demuxers, decoders, encoders and scaler; only BlazeVideo (and so the CLI) links them.
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev"])]),

        // MARK: - Engine
        // The only module shared by the converter and the runtime.
        .target(name: "BlazeModelFormat", exclude: ["README.md"]),
        // Pure compute kernels on raw NHWC buffers; the only target that imports CBLAS.
        .target(name: "BlazeKernels", dependencies: ["CBLAS", "BlazeKernelsAVX512"], exclude: ["README.md"],
                swiftSettings: vectorCodegen + optimizedInDebug),
        // The AVX-512 register tiles, compiled for skylake-avx512 and called only after a CPU check.
        .target(name: "BlazeKernelsAVX512", exclude: ["README.md"], swiftSettings: avx512Codegen + optimizedInDebug),
        // Graph loading, shape checking, planning, weight packing and execution.
        .target(name: "BlazeRuntime", dependencies: ["BlazeModelFormat", "BlazeKernels", "CBLAS"], exclude: ["README.md"],
                swiftSettings: optimizedInDebug),
        // The built-in converted models, found as package resources; in the Python wheel's build
        // (BLAZEKIT_MODELS_BESIDE_LIBRARY=1), in BlazeKit_BlazeModels.resources/bkm beside the library instead, so no
        // resource bundle accessor links full Foundation (and ICU's data) into libblazekit.so; CBlazeKit's
        // blazekit_internal_library_path says where the library is.
        modelsBesideLibrary
            ? .target(name: "BlazeModels", dependencies: ["CBlazeKit"], path: "Models", exclude: ["README.md", "NOTICE", "bkm"],
                      sources: ["BuiltinModels.swift"], swiftSettings: [.define("BLAZEKIT_MODELS_BESIDE_LIBRARY")])
            : .target(name: "BlazeModels", path: "Models", exclude: ["README.md", "NOTICE"],
                      sources: ["BuiltinModels.swift"], resources: [.copy("bkm")]),
        // The cache prefetch hint the warp issues ahead of its source rows (Swift has no spelling for it).
        .target(name: "CPrefetch"),
        // Images: PNG via libpng, JPEG via libjpeg-turbo, EXIF orientation, raw pixel buffers, OpenCV-exact warps.
        .target(name: "BlazeImage", dependencies: ["CPNG", "CJPEG", "CPrefetch"], exclude: ["README.md"], swiftSettings: vectorCodegen + optimizedInDebug),
        // Video files in (demux, decode, display-matrix rotation, presentation times) and out (annotated
        // clips), through FFmpeg's libraries. Its own target, so a program linking only BlazeKit needs no FFmpeg.
        .target(name: "BlazeVideo", dependencies: ["CFFmpeg", "BlazeImage"], exclude: ["README.md"], swiftSettings: vectorCodegen),
        // Pipeline stages: the math as value types (anchors, decoding, NMS, ROI math, crop geometry), the network stages as final classes.
        .target(name: "BlazeStages", dependencies: ["BlazeRuntime", "BlazeKernels", "BlazeImage"], exclude: ["README.md"], swiftSettings: optimizedInDebug),
        // Video and live stream without the networks: next-frame ROIs, association, smoothing filters.
        .target(name: "BlazeTracking", dependencies: ["BlazeStages"], exclude: ["README.md"]),
        // Public entry point: built-in models, PoseLandmarker, HandLandmarker.
        .target(name: "BlazeKit", dependencies: ["BlazeRuntime", "BlazeModels", "BlazeImage", "BlazeStages", "BlazeTracking",
                                                 "BlazeConverter"],
                exclude: ["README.md"]),

        // ML Kit's PoseDetector API over PoseLandmarker (no math of its own).
        .target(name: "BlazeMLKit", dependencies: ["BlazeKit"], exclude: ["README.md"]),
        // Apple Vision's body and hand pose requests over PoseLandmarker and HandLandmarker.
        .target(name: "BlazeVision", dependencies: ["BlazeKit"], exclude: ["README.md"]),

        // MARK: - C ABI (issue 27)
        // blazekit.h and the C-only helpers (version, status names, per-thread error message).
        .target(name: "CBlazeKit", exclude: ["README.md"]),
        // The C functions over BlazeKit's task API (@_cdecl); the `blazekit` dynamic library.
        // BlazeConverter (which BlazeKit links already) converts a single `.tflite` landmark model given by path.
        .target(name: "BlazeKitC", dependencies: ["BlazeKit", "CBlazeKit", "BlazeConverter"], exclude: ["README.md"]),

        // MARK: - Tools
        .target(name: "BlazeConverter",
                dependencies: ["BlazeModelFormat", "CZlib"],
                path: "Sources/BlazeConverter", exclude: ["README.md"]),
        .executableTarget(name: "blaze-convert",
                          dependencies: ["BlazeConverter", "BlazeModelFormat",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          path: "Sources/blaze-convert"),
        .executableTarget(name: "blaze",
                          dependencies: ["BlazeKit", "BlazeVision", "BlazeVideo", .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          exclude: ["README.md"]),
        .executableTarget(name: "blaze-bench",
                          dependencies: ["BlazeKit", "BlazeVideo", "BlazeRuntime", "BlazeKernels", "BlazeImage", "BlazeModelFormat", "BlazeStages", "CBLAS",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          path: "Benchmarks/blaze-bench"),
        // The long-run memory check (VIDEO and LIVE_STREAM side by side); Tools/checks/soak.sh runs it.
        .executableTarget(name: "blaze-soak",
                          dependencies: ["BlazeKit", "BlazeVideo", .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          path: "Sources/blaze-soak"),

        // MARK: - Tests
        // What several test targets share: the seeded SplitMix64, the photos of Tests/BlazeKitTests/Fixtures by path.
        .target(name: "BlazeTestSupport", dependencies: ["BlazeImage"], path: "Tests/BlazeTestSupport"),
        .testTarget(name: "BlazeModelFormatTests", dependencies: ["BlazeModelFormat"]),
        .testTarget(name: "BlazeKernelsTests", dependencies: ["BlazeKernels", "BlazeKernelsAVX512", "CBLAS"]),
        .testTarget(name: "BlazeRuntimeTests", dependencies: ["BlazeRuntime", "BlazeKit", "BlazeModelFormat"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "BlazeConverterTests", dependencies: ["BlazeConverter", "BlazeModelFormat", "CZlib", "BlazeTestSupport"]),
        .testTarget(name: "BlazeImageTests", dependencies: ["BlazeImage", "BlazeTestSupport"], resources: [.copy("Fixtures")]),
        // Fixtures: tiny clips and the frames OpenCV decodes from them (Tools/fixtures/make_video_fixtures.py).
        .testTarget(name: "BlazeVideoTests", dependencies: ["BlazeVideo", "BlazeImage"], resources: [.copy("Fixtures")]),
        // Runs the built `blaze` executable (batch, video, damaged inputs); reads photos in Tests/BlazeKitTests/Fixtures by path.
        .testTarget(name: "BlazeCLITests", dependencies: ["blaze", "BlazeKit", "BlazeRuntime", "BlazeVideo", "BlazeImage", "BlazeTestSupport"]),
        .testTarget(name: "BlazeStagesTests", dependencies: ["BlazeStages", "BlazeImage"]),
        .testTarget(name: "BlazeTrackingTests", dependencies: ["BlazeTracking", "BlazeStages"]),
        // A host program that uses OpenBLAS itself and embeds BlazeKit; HostProcessTests runs it.
        .executableTarget(name: "HostProcessCheck", dependencies: ["BlazeKit", "CBLAS"], path: "Tests/HostProcessCheck"),
        .testTarget(name: "BlazeKitTests", dependencies: ["BlazeKit", "BlazeImage", "BlazeRuntime", "HostProcessCheck", "BlazeTestSupport"], resources: [.copy("Fixtures")]),
        // These two read the photos in Tests/BlazeKitTests/Fixtures by path (BlazeTestSupport's fixturePhoto).
        .testTarget(name: "BlazeMLKitTests", dependencies: ["BlazeMLKit", "BlazeKit", "BlazeRuntime", "BlazeTestSupport"]),
        // A task defined with BlazeKit's public API alone (no @testable, no engine module), run in all three
        // modes; and what `import BlazeKit` does and does not show. Reads Tests/BlazeKitTests/Fixtures by path.
        .testTarget(name: "OutsideTaskTests", dependencies: ["BlazeKit"]),
        .testTarget(name: "BlazeVisionTests", dependencies: ["BlazeVision", "BlazeKit", "BlazeRuntime", "BlazeTestSupport"], resources: [.copy("Fixtures")]),
    ]
)
