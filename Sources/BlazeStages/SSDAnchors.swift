#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One SSD anchor, in normalized tensor coordinates
/// (`mediapipe/framework/formats/object_detection/anchor.proto`).
public struct Anchor: Sendable, Codable, Equatable, Hashable {
    public var xCenter: Float
    public var yCenter: Float
    public var width: Float
    public var height: Float

    public init(xCenter: Float, yCenter: Float, width: Float, height: Float) {
        self.xCenter = xCenter
        self.yCenter = yCenter
        self.width = width
        self.height = height
    }
}

/// The options of `SsdAnchorsCalculator` that the BlazePose/BlazePalm detectors use
/// (`mediapipe/calculators/tflite/ssd_anchors_calculator.proto`). Feature-map sizes are always
/// derived from `strides` (the `feature_map_*` and multiscale options are not supported).
public struct SSDAnchorOptions: Sendable, Codable, Equatable {
    public var inputSizeWidth: Int
    public var inputSizeHeight: Int
    public var minScale: Float
    public var maxScale: Float
    public var anchorOffsetX: Float
    public var anchorOffsetY: Float
    /// One stride per layer; `num_layers` is `strides.count`.
    public var strides: [Int]
    public var aspectRatios: [Float]
    public var fixedAnchorSize: Bool
    /// Proto default **1.0**, so an extra interpolated-scale anchor is emitted per layer unless
    /// this is set to ≤ 0.
    public var interpolatedScaleAspectRatio: Float
    public var reduceBoxesInLowestLayer: Bool

    public init(inputSizeWidth: Int, inputSizeHeight: Int, minScale: Float, maxScale: Float,
                anchorOffsetX: Float = 0.5, anchorOffsetY: Float = 0.5, strides: [Int],
                aspectRatios: [Float], fixedAnchorSize: Bool = false,
                interpolatedScaleAspectRatio: Float = 1.0, reduceBoxesInLowestLayer: Bool = false) {
        self.inputSizeWidth = inputSizeWidth
        self.inputSizeHeight = inputSizeHeight
        self.minScale = minScale
        self.maxScale = maxScale
        self.anchorOffsetX = anchorOffsetX
        self.anchorOffsetY = anchorOffsetY
        self.strides = strides
        self.aspectRatios = aspectRatios
        self.fixedAnchorSize = fixedAnchorSize
        self.interpolatedScaleAspectRatio = interpolatedScaleAspectRatio
        self.reduceBoxesInLowestLayer = reduceBoxesInLowestLayer
    }

    /// The pose detector's anchors (`mediapipe/modules/pose_detection/pose_detection_cpu.pbtxt`;
    /// identical values in `pose_detector_graph.cc` `ConfigureSsdAnchorsCalculator`): 224×224,
    /// scales 0.1484375…0.75, strides 8, 16, 32, 32, 32, aspect ratio 1, fixed size → 2254 anchors.
    public static let poseDetection = SSDAnchorOptions(
        inputSizeWidth: 224, inputSizeHeight: 224, minScale: 0.1484375, maxScale: 0.75,
        anchorOffsetX: 0.5, anchorOffsetY: 0.5, strides: [8, 16, 32, 32, 32], aspectRatios: [1.0],
        fixedAnchorSize: true)
}

/// `SsdAnchorsCalculator::GenerateAnchors` (`mediapipe/calculators/tflite/ssd_anchors_calculator.cc`).
public enum SSDAnchorGenerator {
    /// `CalculateScale`: `min + (max − min)·1.0·i/(n − 1.0f)` — evaluated in **double**
    /// (the `* 1.0` promotes), returned as `Float`; `(min + max)/2` when there is one stride.
    @usableFromInline
    static func scale(minScale: Float, maxScale: Float, strideIndex: Int, strideCount: Int) -> Float {
        if strideCount == 1 { return (minScale + maxScale) * 0.5 }
        return Float(Double(minScale) + Double(maxScale - minScale) * 1.0 * Double(strideIndex)
                     / Double(Float(strideCount) - 1.0))
    }

    /// The anchors in MediaPipe's emission order: for each group of consecutive equal strides →
    /// rows → columns → anchors of the group. Centers are `((x + offset_x)/fm_w, (y + offset_y)/fm_h)`
    /// in `Float`, with `fm = ceil(input_size / stride)`.
    public static func anchors(for options: SSDAnchorOptions) -> [Anchor] {
        var anchors: [Anchor] = []
        let strides = options.strides
        var layer = 0
        while layer < strides.count {
            var anchorHeights: [Float] = []
            var anchorWidths: [Float] = []
            var aspectRatios: [Float] = []
            var scales: [Float] = []
            var last = layer
            while last < strides.count && strides[last] == strides[layer] {
                let scale = Self.scale(minScale: options.minScale, maxScale: options.maxScale,
                                       strideIndex: last, strideCount: strides.count)
                if last == 0 && options.reduceBoxesInLowestLayer {
                    aspectRatios += [1.0, 2.0, 0.5]
                    scales += [0.1, scale, scale]
                } else {
                    for ratio in options.aspectRatios {
                        aspectRatios.append(ratio)
                        scales.append(scale)
                    }
                    if options.interpolatedScaleAspectRatio > 0 {
                        let next: Float = last == strides.count - 1
                            ? 1.0
                            : Self.scale(minScale: options.minScale, maxScale: options.maxScale,
                                         strideIndex: last + 1, strideCount: strides.count)
                        scales.append((scale * next).squareRoot())
                        aspectRatios.append(options.interpolatedScaleAspectRatio)
                    }
                }
                last += 1
            }
            for (ratio, scale) in zip(aspectRatios, scales) {
                let root = ratio.squareRoot()
                anchorHeights.append(scale / root)
                anchorWidths.append(scale * root)
            }
            let stride = strides[layer]
            let fmHeight = Int((Float(options.inputSizeHeight) / Float(stride)).rounded(.up))
            let fmWidth = Int((Float(options.inputSizeWidth) / Float(stride)).rounded(.up))
            for y in 0..<fmHeight {
                for x in 0..<fmWidth {
                    for k in 0..<anchorHeights.count {
                        let xc = (Float(x) + options.anchorOffsetX) * 1.0 / Float(fmWidth)
                        let yc = (Float(y) + options.anchorOffsetY) * 1.0 / Float(fmHeight)
                        anchors.append(options.fixedAnchorSize
                            ? Anchor(xCenter: xc, yCenter: yc, width: 1, height: 1)
                            : Anchor(xCenter: xc, yCenter: yc, width: anchorWidths[k], height: anchorHeights[k]))
                    }
                }
            }
            layer = last
        }
        return anchors
    }
}
