/// A TFLite model decoded from its FlatBuffer: the subset of `schema.fbs` the converter uses.
///
/// Field indices follow `tensorflow/lite/schema/schema.fbs`. Decoding checks every offset and
/// length, so a corrupt file throws ``FlatBufferError`` or ``ConverterError`` and never traps.
public struct TFLiteModel: Sendable {
    public var version: Int
    public var operatorCodes: [TFLiteOperatorCode]
    public var subgraphs: [TFLiteSubGraph]
    public var description: String?
    /// Buffer contents; buffer 0 is the empty sentinel buffer by convention.
    public var buffers: [[UInt8]]
    /// Names of the `metadata` entries (e.g. `min_runtime_version`).
    public var metadataNames: [String]

    /// Decodes a `.tflite` file's bytes.
    public init(bytes: [UInt8]) throws {
        let fb = FlatBuffer(bytes: bytes)
        guard bytes.count >= 8 else {
            throw FlatBufferError(location: "Model", offset: 0, reason: "\(bytes.count) bytes is too short for a TFLite model")
        }
        if bytes[4..<8].elementsEqual("TFL3".utf8) == false {
            throw ConverterError.notTFLite(identifier: String(decoding: bytes[4..<8].map { $0 >= 32 && $0 < 127 ? $0 : 63 }, as: UTF8.self))
        }
        let model = try fb.rootTable("Model")
        version = Int(try model.scalar(0, "version", default: UInt32(0)))
        operatorCodes = try model.tables(1, "operator_codes", type: "OperatorCode").map(TFLiteOperatorCode.init)
        subgraphs = try model.tables(2, "subgraphs", type: "SubGraph").map(TFLiteSubGraph.init)
        description = try model.string(3, "description")
        buffers = try model.tables(4, "buffers", type: "Buffer").enumerated().map { index, table in
            try TFLiteModel.bufferData(table, index: index, file: fb)
        }
        metadataNames = try model.tables(6, "metadata", type: "Metadata").map { try $0.string(0, "name") ?? "" }
    }

    /// A buffer's bytes: inline `data`, or `offset`/`size` into the file for models over 2 GB.
    static func bufferData(_ table: FlatBufferTable, index: Int, file: FlatBuffer) throws -> [UInt8] {
        if let range = try table.byteRange(0, "data"), !range.isEmpty {
            return Array(file.bytes[range])
        }
        let offset = try table.scalar(1, "offset", default: UInt64(0))
        let size = try table.scalar(2, "size", default: UInt64(0))
        guard offset > 1 else { return [] }
        guard offset <= UInt64(file.count), size <= UInt64(file.count) - offset else {
            throw FlatBufferError(location: "Buffer[\(index)].offset", offset: table.position,
                                  reason: "bytes \(offset)..<\(offset &+ size) lie outside the \(file.count)-byte file")
        }
        return Array(file.bytes[Int(offset)..<Int(offset + size)])
    }

    /// The builtin operator code of `opcodeIndex`.
    public func builtinCode(ofOpcode opcodeIndex: Int) -> Int? {
        guard opcodeIndex >= 0, opcodeIndex < operatorCodes.count else { return nil }
        return operatorCodes[opcodeIndex].builtinCode
    }
}

/// `OperatorCode`: the operator kind an operator's `opcode_index` refers to.
public struct TFLiteOperatorCode: Sendable {
    /// `max(deprecated_builtin_code, builtin_code)`, the rule TFLite itself uses.
    public var builtinCode: Int
    public var customCode: String?
    public var version: Int

    init(_ t: FlatBufferTable) throws {
        let deprecated = Int(try t.scalar(0, "deprecated_builtin_code", default: Int8(0)))
        let current = Int(try t.scalar(3, "builtin_code", default: Int32(0)))
        builtinCode = max(deprecated, current)
        customCode = try t.string(1, "custom_code")
        version = Int(try t.scalar(2, "version", default: Int32(1)))
    }

    /// The operator's name: the builtin name, or `CUSTOM(code)`.
    public var name: String {
        if builtinCode == BuiltinOperator.custom.rawValue { return "CUSTOM(\(customCode ?? "?"))" }
        return TFLiteSchema.operatorName(builtinCode)
    }
}

/// `SubGraph`.
public struct TFLiteSubGraph: Sendable {
    public var tensors: [TFLiteTensor]
    public var inputs: [Int]
    public var outputs: [Int]
    public var operators: [TFLiteOperator]
    public var name: String?

    init(_ t: FlatBufferTable) throws {
        tensors = try t.tables(0, "tensors", type: "Tensor").map(TFLiteTensor.init)
        inputs = try t.vector(1, "inputs", of: Int32.self)?.map(Int.init) ?? []
        outputs = try t.vector(2, "outputs", of: Int32.self)?.map(Int.init) ?? []
        operators = try t.tables(3, "operators", type: "Operator").map(TFLiteOperator.init)
        name = try t.string(4, "name")
    }
}

/// `Tensor`.
public struct TFLiteTensor: Sendable {
    public var shape: [Int]
    /// The raw `TensorType` code.
    public var typeCode: Int
    public var buffer: Int
    public var name: String
    public var sparsity: SparsityParameters?

    public var type: TFLiteTensorType? { TFLiteTensorType(rawValue: typeCode) }

    init(_ t: FlatBufferTable) throws {
        shape = try t.vector(0, "shape", of: Int32.self)?.map(Int.init) ?? []
        typeCode = Int(try t.scalar(1, "type", default: Int8(0)))
        buffer = Int(try t.scalar(2, "buffer", default: UInt32(0)))
        name = try t.string(3, "name") ?? ""
        sparsity = try t.table(6, "sparsity", type: "SparsityParameters").map(SparsityParameters.init)
    }
}

/// `Operator`.
public struct TFLiteOperator: Sendable {
    public var opcodeIndex: Int
    /// Tensor indices; -1 marks an omitted optional input.
    public var inputs: [Int]
    public var outputs: [Int]
    public var options: OperatorOptions
    /// `custom_options`: a custom operator's FlexBuffer of options (empty when absent).
    public var customOptions: [UInt8]

    init(_ t: FlatBufferTable) throws {
        opcodeIndex = Int(try t.scalar(0, "opcode_index", default: UInt32(0)))
        inputs = try t.vector(1, "inputs", of: Int32.self)?.map(Int.init) ?? []
        outputs = try t.vector(2, "outputs", of: Int32.self)?.map(Int.init) ?? []
        let optionsType = Int(try t.scalar(3, "builtin_options_type", default: UInt8(0)))
        let optionsTable = try t.table(4, "builtin_options", type: "BuiltinOptions")
        options = try OperatorOptions.decode(type: optionsType, table: optionsTable)
        customOptions = try t.byteRange(5, "custom_options").map { Array(t.buffer.bytes[$0]) } ?? []
    }
}

/// `SparsityParameters`: how a sparse constant's values are laid out (TFLite's TACO-style format).
public struct SparsityParameters: Sendable, Equatable {
    /// The order in which the (original + block) dimensions are traversed.
    public var traversalOrder: [Int]
    /// For each block dimension, the original dimension it blocks.
    public var blockMap: [Int]
    /// One entry per traversed dimension.
    public var dimMetadata: [DimensionMetadata]

    public init(traversalOrder: [Int], blockMap: [Int], dimMetadata: [DimensionMetadata]) {
        self.traversalOrder = traversalOrder
        self.blockMap = blockMap
        self.dimMetadata = dimMetadata
    }

    init(_ t: FlatBufferTable) throws {
        traversalOrder = try t.vector(0, "traversal_order", of: Int32.self)?.map(Int.init) ?? []
        blockMap = try t.vector(1, "block_map", of: Int32.self)?.map(Int.init) ?? []
        dimMetadata = try t.tables(2, "dim_metadata", type: "DimensionMetadata").map(DimensionMetadata.init)
    }
}

/// `DimensionMetadata`: one dimension of a sparse tensor, dense or compressed (CSR).
public struct DimensionMetadata: Sendable, Equatable {
    public enum Format: Int, Sendable { case dense = 0, sparseCSR = 1 }
    public var format: Format
    /// The dimension's size when ``format`` is dense.
    public var denseSize: Int
    /// CSR segment boundaries (`array_segments`).
    public var segments: [Int]
    /// CSR coordinates (`array_indices`).
    public var indices: [Int]

    public init(format: Format, denseSize: Int = 0, segments: [Int] = [], indices: [Int] = []) {
        self.format = format
        self.denseSize = denseSize
        self.segments = segments
        self.indices = indices
    }

    init(_ t: FlatBufferTable) throws {
        let rawFormat = Int(try t.scalar(0, "format", default: Int8(0)))
        guard let f = Format(rawValue: rawFormat) else {
            throw FlatBufferError(location: "DimensionMetadata.format", offset: t.position,
                                  reason: "unknown dimension type \(rawFormat)")
        }
        format = f
        denseSize = Int(try t.scalar(1, "dense_size", default: Int32(0)))
        segments = try DimensionMetadata.indexVector(t, typeField: 2, valueField: 3, name: "array_segments")
        indices = try DimensionMetadata.indexVector(t, typeField: 4, valueField: 5, name: "array_indices")
    }

    /// Reads a `SparseIndexVector` union: Int32Vector (1), Uint16Vector (2) or Uint8Vector (3).
    static func indexVector(_ t: FlatBufferTable, typeField: Int, valueField: Int, name: String) throws -> [Int] {
        let type = Int(try t.scalar(typeField, "\(name)_type", default: UInt8(0)))
        guard type != 0 else { return [] }
        guard let v = try t.table(valueField, name, type: "SparseIndexVector") else {
            throw FlatBufferError(location: "DimensionMetadata.\(name)", offset: t.position,
                                  reason: "union type \(type) is set but the vector table is absent")
        }
        switch type {
        case 1: return try v.vector(0, "values", of: Int32.self)?.map(Int.init) ?? []
        case 2: return try v.vector(0, "values", of: UInt16.self)?.map(Int.init) ?? []
        case 3: return try v.vector(0, "values", of: UInt8.self)?.map(Int.init) ?? []
        default:
            throw FlatBufferError(location: "DimensionMetadata.\(name)_type", offset: t.position,
                                  reason: "unknown SparseIndexVector type \(type)")
        }
    }
}
