/// Enumerations of the TFLite schema (`tensorflow/lite/schema/schema.fbs`) that the converter
/// reads. Only the values the converter needs are spelled out; the rest are kept as raw numbers.
public enum TFLiteSchema {
    /// Names of `BuiltinOperator` values 0…209, indexed by code (for messages and histograms).
    static let builtinOperatorNames: [String] = """
        ADD AVERAGE_POOL_2D CONCATENATION CONV_2D DEPTHWISE_CONV_2D DEPTH_TO_SPACE DEQUANTIZE \
        EMBEDDING_LOOKUP FLOOR FULLY_CONNECTED HASHTABLE_LOOKUP L2_NORMALIZATION L2_POOL_2D \
        LOCAL_RESPONSE_NORMALIZATION LOGISTIC LSH_PROJECTION LSTM MAX_POOL_2D MUL RELU RELU_N1_TO_1 \
        RELU6 RESHAPE RESIZE_BILINEAR RNN SOFTMAX SPACE_TO_DEPTH SVDF TANH CONCAT_EMBEDDINGS SKIP_GRAM \
        CALL CUSTOM EMBEDDING_LOOKUP_SPARSE PAD UNIDIRECTIONAL_SEQUENCE_RNN GATHER BATCH_TO_SPACE_ND \
        SPACE_TO_BATCH_ND TRANSPOSE MEAN SUB DIV SQUEEZE UNIDIRECTIONAL_SEQUENCE_LSTM STRIDED_SLICE \
        BIDIRECTIONAL_SEQUENCE_RNN EXP TOPK_V2 SPLIT LOG_SOFTMAX DELEGATE BIDIRECTIONAL_SEQUENCE_LSTM \
        CAST PRELU MAXIMUM ARG_MAX MINIMUM LESS NEG PADV2 GREATER GREATER_EQUAL LESS_EQUAL SELECT SLICE \
        SIN TRANSPOSE_CONV SPARSE_TO_DENSE TILE EXPAND_DIMS EQUAL NOT_EQUAL LOG SUM SQRT RSQRT SHAPE POW \
        ARG_MIN FAKE_QUANT REDUCE_PROD REDUCE_MAX PACK LOGICAL_OR ONE_HOT LOGICAL_AND LOGICAL_NOT UNPACK \
        REDUCE_MIN FLOOR_DIV REDUCE_ANY SQUARE ZEROS_LIKE FILL FLOOR_MOD RANGE RESIZE_NEAREST_NEIGHBOR \
        LEAKY_RELU SQUARED_DIFFERENCE MIRROR_PAD ABS SPLIT_V UNIQUE CEIL REVERSE_V2 ADD_N GATHER_ND COS \
        WHERE RANK ELU REVERSE_SEQUENCE MATRIX_DIAG QUANTIZE MATRIX_SET_DIAG ROUND HARD_SWISH IF WHILE \
        NON_MAX_SUPPRESSION_V4 NON_MAX_SUPPRESSION_V5 SCATTER_ND SELECT_V2 DENSIFY SEGMENT_SUM \
        BATCH_MATMUL PLACEHOLDER_FOR_GREATER_OP_CODES CUMSUM CALL_ONCE BROADCAST_TO RFFT2D CONV_3D IMAG \
        REAL COMPLEX_ABS HASHTABLE HASHTABLE_FIND HASHTABLE_IMPORT HASHTABLE_SIZE REDUCE_ALL \
        CONV_3D_TRANSPOSE VAR_HANDLE READ_VARIABLE ASSIGN_VARIABLE BROADCAST_ARGS RANDOM_STANDARD_NORMAL \
        BUCKETIZE RANDOM_UNIFORM MULTINOMIAL GELU DYNAMIC_UPDATE_SLICE RELU_0_TO_1 UNSORTED_SEGMENT_PROD \
        UNSORTED_SEGMENT_MAX UNSORTED_SEGMENT_SUM ATAN2 UNSORTED_SEGMENT_MIN SIGN BITCAST BITWISE_XOR \
        RIGHT_SHIFT STABLEHLO_LOGISTIC STABLEHLO_ADD STABLEHLO_DIVIDE STABLEHLO_MULTIPLY STABLEHLO_MAXIMUM \
        STABLEHLO_RESHAPE STABLEHLO_CLAMP STABLEHLO_CONCATENATE STABLEHLO_BROADCAST_IN_DIM \
        STABLEHLO_CONVOLUTION STABLEHLO_SLICE STABLEHLO_CUSTOM_CALL STABLEHLO_REDUCE STABLEHLO_ABS \
        STABLEHLO_AND STABLEHLO_COSINE STABLEHLO_EXPONENTIAL STABLEHLO_FLOOR STABLEHLO_LOG \
        STABLEHLO_MINIMUM STABLEHLO_NEGATE STABLEHLO_OR STABLEHLO_POWER STABLEHLO_REMAINDER \
        STABLEHLO_RSQRT STABLEHLO_SELECT STABLEHLO_SUBTRACT STABLEHLO_TANH STABLEHLO_SCATTER \
        STABLEHLO_COMPARE STABLEHLO_CONVERT STABLEHLO_DYNAMIC_SLICE STABLEHLO_DYNAMIC_UPDATE_SLICE \
        STABLEHLO_PAD STABLEHLO_IOTA STABLEHLO_DOT_GENERAL STABLEHLO_REDUCE_WINDOW STABLEHLO_SORT \
        STABLEHLO_WHILE STABLEHLO_GATHER STABLEHLO_TRANSPOSE DILATE STABLEHLO_RNG_BIT_GENERATOR \
        REDUCE_WINDOW STABLEHLO_COMPOSITE STABLEHLO_SHIFT_LEFT STABLEHLO_CBRT STABLEHLO_CASE
        """.split(separator: " ").map(String.init)

    /// The schema name of builtin operator `code`, e.g. `CONV_2D`.
    public static func operatorName(_ code: Int) -> String {
        code >= 0 && code < builtinOperatorNames.count ? builtinOperatorNames[code] : "BUILTIN_\(code)"
    }
}

/// The builtin operators the converter understands (`BuiltinOperator` codes).
public enum BuiltinOperator: Int, Sendable {
    case add = 0
    case concatenation = 2
    case conv2d = 3
    case depthwiseConv2d = 4
    case depthToSpace = 5
    case dequantize = 6
    case fullyConnected = 9
    case logistic = 14
    case maxPool2d = 17
    case mul = 18
    case relu = 19
    case reshape = 22
    case resizeBilinear = 23
    case custom = 32
    case pad = 34
    case mean = 40
    case stridedSlice = 45
    case prelu = 54
    case densify = 124
}

/// `TensorType` element types.
public enum TFLiteTensorType: Int, Sendable, CustomStringConvertible {
    case float32 = 0, float16 = 1, int32 = 2, uint8 = 3, int64 = 4, string = 5, bool = 6, int16 = 7
    case complex64 = 8, int8 = 9, float64 = 10

    /// Bytes per element.
    var size: Int {
        switch self {
        case .bool, .uint8, .int8: return 1
        case .float16, .int16: return 2
        case .float32, .int32: return 4
        case .int64, .float64, .complex64: return 8
        case .string: return 1
        }
    }

    public var description: String {
        switch self {
        case .float32: return "FLOAT32"
        case .float16: return "FLOAT16"
        case .int32: return "INT32"
        case .uint8: return "UINT8"
        case .int64: return "INT64"
        case .string: return "STRING"
        case .bool: return "BOOL"
        case .int16: return "INT16"
        case .complex64: return "COMPLEX64"
        case .int8: return "INT8"
        case .float64: return "FLOAT64"
        }
    }
}

/// `Padding` of convolution and pooling options.
public enum TFLitePadding: Int, Sendable {
    case same = 0
    case valid = 1
}

/// `BuiltinOptions` union type codes of the option tables the converter reads.
enum BuiltinOptionsType: Int {
    case conv2d = 1
    case depthwiseConv2d = 2
    case pool2d = 5
    case fullyConnected = 8
    case concatenation = 10
    case add = 11
    case resizeBilinear = 15
    case reshape = 17
    case mul = 21
    case reducer = 27
    case stridedSlice = 32
    case depthToSpace = 94
}

/// The decoded builtin options of one operator.
public enum OperatorOptions: Sendable, Equatable {
    case none
    /// Conv2DOptions: padding, stride_w, stride_h, fused_activation_function, dilation_w/h.
    case conv2d(padding: Int, strideW: Int, strideH: Int, activation: Int, dilationW: Int, dilationH: Int)
    /// DepthwiseConv2DOptions: as conv2d plus depth_multiplier.
    case depthwiseConv2d(padding: Int, strideW: Int, strideH: Int, depthMultiplier: Int, activation: Int,
                         dilationW: Int, dilationH: Int)
    /// Pool2DOptions.
    case pool2d(padding: Int, strideW: Int, strideH: Int, filterW: Int, filterH: Int, activation: Int)
    case add(activation: Int)
    case concatenation(axis: Int, activation: Int)
    case reshape(newShape: [Int]?)
    case resizeBilinear(alignCorners: Bool, halfPixelCenters: Bool)
    case depthToSpace(blockSize: Int)
    case fullyConnected(activation: Int, weightsFormat: Int, keepNumDims: Bool)
    case reducer(keepDims: Bool)
    case mul(activation: Int)
    /// StridedSliceOptions: the five masks and `offset`.
    case stridedSlice(beginMask: Int, endMask: Int, ellipsisMask: Int, newAxisMask: Int, shrinkAxisMask: Int, offset: Bool)
    /// An options table of a type the converter does not decode.
    case other(type: Int)

    /// Decodes the union value `table` of union type `type`.
    static func decode(type: Int, table: FlatBufferTable?) throws -> OperatorOptions {
        guard type != 0 else { return .none }
        guard let kind = BuiltinOptionsType(rawValue: type) else { return .other(type: type) }
        guard let t = table else {
            throw FlatBufferError(location: "Operator.builtin_options", offset: 0,
                                  reason: "union type \(type) is set but the options table is absent")
        }
        func i32(_ i: Int, _ f: String, _ d: Int32 = 0) throws -> Int { Int(try t.scalar(i, f, default: d)) }
        func i8(_ i: Int, _ f: String) throws -> Int { Int(try t.scalar(i, f, default: Int8(0))) }
        switch kind {
        case .conv2d:
            return .conv2d(padding: try i8(0, "padding"), strideW: try i32(1, "stride_w"), strideH: try i32(2, "stride_h"),
                           activation: try i8(3, "fused_activation_function"),
                           dilationW: try i32(4, "dilation_w_factor", 1), dilationH: try i32(5, "dilation_h_factor", 1))
        case .depthwiseConv2d:
            return .depthwiseConv2d(padding: try i8(0, "padding"), strideW: try i32(1, "stride_w"),
                                    strideH: try i32(2, "stride_h"), depthMultiplier: try i32(3, "depth_multiplier"),
                                    activation: try i8(4, "fused_activation_function"),
                                    dilationW: try i32(5, "dilation_w_factor", 1), dilationH: try i32(6, "dilation_h_factor", 1))
        case .pool2d:
            return .pool2d(padding: try i8(0, "padding"), strideW: try i32(1, "stride_w"), strideH: try i32(2, "stride_h"),
                           filterW: try i32(3, "filter_width"), filterH: try i32(4, "filter_height"),
                           activation: try i8(5, "fused_activation_function"))
        case .add:
            return .add(activation: try i8(0, "fused_activation_function"))
        case .concatenation:
            return .concatenation(axis: try i32(0, "axis"), activation: try i8(1, "fused_activation_function"))
        case .reshape:
            return .reshape(newShape: try t.vector(0, "new_shape", of: Int32.self)?.map(Int.init))
        case .resizeBilinear:
            return .resizeBilinear(alignCorners: try t.bool(2, "align_corners"),
                                   halfPixelCenters: try t.bool(3, "half_pixel_centers"))
        case .depthToSpace:
            return .depthToSpace(blockSize: try i32(0, "block_size"))
        case .fullyConnected:
            return .fullyConnected(activation: try i8(0, "fused_activation_function"),
                                   weightsFormat: try i8(1, "weights_format"), keepNumDims: try t.bool(2, "keep_num_dims"))
        case .reducer:
            return .reducer(keepDims: try t.bool(0, "keep_dims"))
        case .mul:
            return .mul(activation: try i8(0, "fused_activation_function"))
        case .stridedSlice:
            return .stridedSlice(beginMask: try i32(0, "begin_mask"), endMask: try i32(1, "end_mask"),
                                 ellipsisMask: try i32(2, "ellipsis_mask"), newAxisMask: try i32(3, "new_axis_mask"),
                                 shrinkAxisMask: try i32(4, "shrink_axis_mask"), offset: try t.bool(5, "offset"))
        }
    }
}
