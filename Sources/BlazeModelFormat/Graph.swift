/// The operator set that BlazeKit model files speak.
///
/// The raw values are written into model files and must never change meaning: a change of
/// semantics or weight layout bumps ``ModelFileFormat/opsetVersion``. Every op works on
/// float32 NHWC activations. Attribute keys for each op are listed in its case documentation;
/// the converter writes them and the runtime reads them.
public enum OpKind: String, CaseIterable, Codable, Sendable {
    /// Dense convolution. Inputs: x `[1,H,W,Cin]`, weight OHWI `[Cout,KH,KW,Cin]`, bias `[Cout]`.
    /// Attributes: `strides` [sh, sw], `dilations` [dh, dw], `pads` [top, left, bottom, right],
    /// `activation` (see ``Activation``).
    case conv2d = "conv2d"
    /// Depthwise convolution, depth multiplier 1. Inputs: x `[1,H,W,C]`, weight `[KH,KW,C]`,
    /// bias `[C]`. Attributes as ``conv2d``.
    case depthwiseConv2d = "depthwise_conv2d"
    /// Element-wise sum of two tensors of the same shape. Attribute: `activation`.
    case add = "add"
    /// Parametric ReLU: `x >= 0 ? x : alpha[c] * x`. Inputs: x, alpha `[C]` (per last axis).
    case prelu = "prelu"
    /// Max pooling. Attributes: `filter` [kh, kw], `strides`, `pads` (padded cells are ignored),
    /// `activation`.
    case maxPool2d = "max_pool2d"
    /// Constant-zero padding. Attribute: `pads`, `[before0, after0, before1, after1, …]` per axis.
    case pad = "pad"
    /// Bilinear resize of H and W. Attributes: `size` [h, w], `align_corners` (0/1),
    /// `half_pixel_centers` (0/1), with TFLite's semantics.
    case resizeBilinear = "resize_bilinear"
    /// TFLite DEPTH_TO_SPACE (DCR order). Attribute: `block_size`.
    case depthToSpace = "depth_to_space"
    /// Reinterprets the element order under the output value's shape.
    case reshape = "reshape"
    /// Concatenation along `axis` (non-negative). Attribute: `activation`.
    case concatenation = "concatenation"
    /// Mean over `axes` (non-negative); the output shape is the output value's shape.
    case mean = "mean"
    /// `y = x · Wᵀ + b`. Inputs: x `[…, K]`, weight `[N, K]`, bias `[N]`. Attribute: `activation`.
    case fullyConnected = "fully_connected"
    /// `1 / (1 + exp(-x))`.
    case logistic = "logistic"
    /// `max(x, 0)` (TFLite RELU). Op set 2.
    case relu = "relu"
    /// Element-wise product `x · y` with fused clamp. The second input has the first's shape or one
    /// element (a scalar broadcast over all). Attribute: `activation`. Op set 2.
    case mul = "mul"
    /// A strided slice: output element `i` (per axis) is input element `begin + i · stride`, the output
    /// value's shape giving the count per axis. Attributes: `begin`, `strides` (positive), one per axis,
    /// masks already resolved by the converter. Op set 2.
    case stridedSlice = "strided_slice"
    /// MediaPipe's `Landmarks2TransformMatrix` (version 2, `mediapipe/util/tflite/operations/`): from
    /// landmarks `[1, N, 3]` a `[1, 4, 4]` row-major matrix taking output pixels of an
    /// `output_height` × `output_width` crop to input coordinates. Attributes: `left_rotation_idx`,
    /// `right_rotation_idx` (ints, the landmarks whose line sets the rotation), `subset_idxs` (ints, the
    /// landmarks whose rotated bounding box sets centre and size), `target_rotation_radians`, `scale_x`,
    /// `scale_y` (floats), `output_height`, `output_width` (ints). Op set 2.
    case landmarksToTransformMatrix = "landmarks_to_transform_matrix"
    /// MediaPipe's `TransformTensorBilinear` (version 2): samples x `[1, H, W, C]` bilinearly at the
    /// points a `[1, 4, 4]` matrix maps each output pixel centre to; samples outside the input are zero.
    /// Inputs: x, matrix. Op set 2.
    case transformTensorBilinear = "transform_tensor_bilinear"
    /// MediaPipe's `TransformLandmarks` (version 2): landmarks `[1, N, D]` (D 2 or 3) whose x, y go
    /// through the 2-D affine part of a `[1, 4, 4]` matrix; z is copied. Inputs: landmarks, matrix. Op set 2.
    case transformLandmarks = "transform_landmarks"

    /// The op set that added this op: a file is written with the highest of its nodes' (``ModelFileFormat/opsetVersion``
    /// is the newest), so that converting a model again gives the same bytes and a reader of an older op set still
    /// loads files that need nothing newer.
    public var opset: UInt32 {
        switch self {
        case .relu, .mul, .stridedSlice, .landmarksToTransformMatrix, .transformTensorBilinear, .transformLandmarks: 2
        default: 1
        }
    }
}

/// A fused activation, as a node's `activation` string attribute.
public enum Activation: String, CaseIterable, Codable, Sendable {
    case none
    case relu
    case relu6
    case reluN1To1 = "relu_n1_to_1"

    /// The clamp bounds that realise this activation.
    public var bounds: (min: Float, max: Float) {
        switch self {
        case .none: return (-.infinity, .infinity)
        case .relu: return (0, .infinity)
        case .relu6: return (0, 6)
        case .reluN1To1: return (-1, 1)
        }
    }
}

/// A typed attribute value stored on a node.
public enum AttributeValue: Codable, Sendable, Equatable, CustomStringConvertible {
    case int(Int)
    case float(Float)
    case ints([Int])
    case floats([Float])
    case string(String)

    private enum Key: String, CodingKey { case i, f, ints, floats, s }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        guard let key = c.allKeys.first, c.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "an attribute must have exactly one of the keys i, f, ints, floats, s"))
        }
        switch key {
        case .i: self = .int(try c.decode(Int.self, forKey: key))
        case .f: self = .float(try c.decode(Float.self, forKey: key))
        case .ints: self = .ints(try c.decode([Int].self, forKey: key))
        case .floats: self = .floats(try c.decode([Float].self, forKey: key))
        case .s: self = .string(try c.decode(String.self, forKey: key))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .int(let v): try c.encode(v, forKey: .i)
        case .float(let v): try c.encode(v, forKey: .f)
        case .ints(let v): try c.encode(v, forKey: .ints)
        case .floats(let v): try c.encode(v, forKey: .floats)
        case .string(let v): try c.encode(v, forKey: .s)
        }
    }

    public var description: String {
        switch self {
        case .int(let v): return String(v)
        case .float(let v): return String(v)
        case .ints(let v): return "\(v)"
        case .floats(let v): return "\(v)"
        case .string(let v): return v
        }
    }
}

/// One value of the graph: a graph input, a constant (weights) or an intermediate/output
/// activation. Its id is its index in ``Graph/values``.
public struct ValueInfo: Codable, Sendable, Equatable {
    public var name: String
    public var shape: [Int]
    /// Index into the file's tensor table when this value is a constant.
    public var constant: Int?

    public init(name: String, shape: [Int], constant: Int? = nil) {
        self.name = name
        self.shape = shape
        self.constant = constant
    }

    public var elementCount: Int { shape.reduce(1, *) }
}

/// One operation of the graph.
public struct Node: Codable, Sendable, Equatable {
    public var op: OpKind
    /// A name for messages (the TFLite output tensor name, usually).
    public var name: String
    public var inputs: [Int]
    public var outputs: [Int]
    public var attributes: [String: AttributeValue]

    public init(op: OpKind, name: String, inputs: [Int], outputs: [Int],
                attributes: [String: AttributeValue] = [:]) {
        self.op = op
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.attributes = attributes
    }
}

/// A topologically sorted dataflow graph over float32 tensors.
public struct Graph: Codable, Sendable, Equatable {
    public var values: [ValueInfo]
    public var nodes: [Node]
    public var inputs: [Int]
    public var outputs: [Int]

    public init(values: [ValueInfo], nodes: [Node], inputs: [Int], outputs: [Int]) {
        self.values = values
        self.nodes = nodes
        self.inputs = inputs
        self.outputs = outputs
    }
}

extension Node {
    /// The integer attribute `key`, or a ``ModelFormatError/badAttribute`` naming the node.
    public func int(_ key: String, nodeIndex: Int) throws -> Int {
        guard case .int(let v)? = attributes[key] else { throw missing(key, "an int", nodeIndex) }
        return v
    }

    public func ints(_ key: String, count: Int, nodeIndex: Int) throws -> [Int] {
        guard case .ints(let v)? = attributes[key], v.count == count else {
            throw missing(key, "\(count) ints", nodeIndex)
        }
        return v
    }

    /// The float attribute `key` (an int attribute is taken as its float value).
    public func float(_ key: String, nodeIndex: Int) throws -> Float {
        switch attributes[key] {
        case .float(let v)?: return v
        case .int(let v)?: return Float(v)
        default: throw missing(key, "a float", nodeIndex)
        }
    }

    /// The int-list attribute `key`, of any length.
    public func intList(_ key: String, nodeIndex: Int) throws -> [Int] {
        guard case .ints(let v)? = attributes[key] else { throw missing(key, "a list of ints", nodeIndex) }
        return v
    }

    public func string(_ key: String, nodeIndex: Int) throws -> String {
        guard case .string(let v)? = attributes[key] else { throw missing(key, "a string", nodeIndex) }
        return v
    }

    public func activation(nodeIndex: Int) throws -> Activation {
        guard let raw = attributes["activation"] else { return .none }
        guard case .string(let s) = raw, let a = Activation(rawValue: s) else {
            throw ModelFormatError.badAttribute(node: nodeIndex, op: op.rawValue, name: name, key: "activation",
                expected: "one of \(Activation.allCases.map(\.rawValue))", actual: raw.description)
        }
        return a
    }

    private func missing(_ key: String, _ what: String, _ nodeIndex: Int) -> ModelFormatError {
        .badAttribute(node: nodeIndex, op: op.rawValue, name: name, key: key, expected: what,
                      actual: attributes[key]?.description ?? "absent")
    }
}
