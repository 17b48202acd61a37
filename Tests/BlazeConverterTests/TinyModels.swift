@testable import BlazeConverter

/// Builds small TFLite models in memory for tests (no fixture files).
struct TinyTFLite {
    struct Tensor {
        var name: String
        var shape: [Int32]
        var type: Int8 = 0  // FLOAT32
        var data: [UInt8]? = nil
        var sparsity: FBTable? = nil
    }

    struct Op {
        var code: Int32
        var inputs: [Int32]
        var outputs: [Int32]
        var optionsType: UInt8 = 0
        var options: FBTable? = nil
    }

    var tensors: [Tensor] = []
    var ops: [Op] = []
    var inputs: [Int32] = []
    var outputs: [Int32] = []
    var description = "tiny test model"
    var version: UInt32 = 3

    /// Adds a tensor and returns its index.
    @discardableResult
    mutating func tensor(_ name: String, _ shape: [Int32], type: Int8 = 0, data: [UInt8]? = nil, sparsity: FBTable? = nil) -> Int32 {
        tensors.append(Tensor(name: name, shape: shape, type: type, data: data, sparsity: sparsity))
        return Int32(tensors.count - 1)
    }

    mutating func op(_ code: Int32, _ inputs: [Int32], _ outputs: [Int32], optionsType: UInt8 = 0, options: FBTable? = nil) {
        ops.append(Op(code: code, inputs: inputs, outputs: outputs, optionsType: optionsType, options: options))
    }

    func build() -> [UInt8] {
        var codes: [Int32] = []
        for op in ops where !codes.contains(op.code) { codes.append(op.code) }
        var buffers: [FBTable] = [FBTable()]
        var tensorTables: [FBTable] = []
        for t in tensors {
            var fields: [(Int, FBValue)] = [(0, .ints(t.shape)), (1, .i8(t.type)), (3, .string(t.name))]
            if let d = t.data {
                fields.append((2, .u32(UInt32(buffers.count))))
                buffers.append(FBTable([(0, .bytes(d))]))
            }
            if let s = t.sparsity { fields.append((6, .table(s))) }
            tensorTables.append(FBTable(fields))
        }
        let opTables = ops.map { op -> FBTable in
            var fields: [(Int, FBValue)] = [(0, .u32(UInt32(codes.firstIndex(of: op.code)!))),
                                            (1, .ints(op.inputs)), (2, .ints(op.outputs))]
            if let o = op.options {
                fields.append((3, .u8(op.optionsType)))
                fields.append((4, .table(o)))
            }
            return FBTable(fields)
        }
        // Codes below 127 go in the deprecated int8 field as old converters wrote them; larger
        // ones in builtin_code with the deprecated field at PLACEHOLDER_FOR_GREATER_OP_CODES.
        let codeTables = codes.map { c -> FBTable in
            c < 127 ? FBTable([(0, .i8(Int8(c))), (2, .i32(1))])
                    : FBTable([(0, .i8(127)), (2, .i32(1)), (3, .i32(c))])
        }
        let subgraph = FBTable([(0, .tables(tensorTables)), (1, .ints(inputs)), (2, .ints(outputs)),
                                (3, .tables(opTables)), (4, .string("main"))])
        let model = FBTable([(0, .u32(version)), (1, .tables(codeTables)), (2, .tables([subgraph])),
                             (3, .string(description)), (4, .tables(buffers))])
        return FlatBufferTestBuilder.build(root: model)
    }
}

// MARK: - Data helpers

func floatBytes(_ values: [Float]) -> [UInt8] {
    values.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v.bitPattern >> (8 * UInt32($0))) } }
}

func int32Bytes(_ values: [Int32]) -> [UInt8] {
    values.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * Int32($0))) } }
}

func uint16Bytes(_ values: [UInt16]) -> [UInt8] {
    values.flatMap { v in [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
}

/// Float16 bit patterns of small integers (exact): n in -2048...2048.
func float16Bits(_ n: Int) -> UInt16 {
    if n == 0 { return 0 }
    let sign: UInt16 = n < 0 ? 0x8000 : 0
    var m = abs(n), e = 0
    while m >= 2048 { m >>= 1; e += 1 }
    while m < 1024 { m <<= 1; e -= 1 }
    return sign | UInt16(e + 10 + 15) << 10 | UInt16(m & 0x3ff)
}

/// Option tables.
enum Options {
    static func conv(padding: Int8, stride: Int32, activation: Int8 = 0) -> FBTable {
        FBTable([(0, .i8(padding)), (1, .i32(stride)), (2, .i32(stride)), (3, .i8(activation))])
    }
    static func depthwise(padding: Int8, stride: Int32, multiplier: Int32 = 1, activation: Int8 = 0) -> FBTable {
        FBTable([(0, .i8(padding)), (1, .i32(stride)), (2, .i32(stride)), (3, .i32(multiplier)), (4, .i8(activation))])
    }
    static func pool(padding: Int8, stride: Int32, filter: Int32) -> FBTable {
        FBTable([(0, .i8(padding)), (1, .i32(stride)), (2, .i32(stride)), (3, .i32(filter)), (4, .i32(filter))])
    }
    static func add(activation: Int8 = 0) -> FBTable { FBTable([(0, .i8(activation))]) }
}

/// A small but complete model: PAD → CONV_2D (fp16 weights behind DEQUANTIZE, VALID) →
/// DEPTHWISE_CONV_2D (SAME, stride 2, sparse fp16 weights behind DENSIFY+DEQUANTIZE) → ADD → LOGISTIC.
func tinyModel() -> TinyTFLite {
    var m = TinyTFLite()
    let x = m.tensor("input", [1, 6, 6, 3])
    let paddings = m.tensor("paddings", [4, 2], type: 2, data: int32Bytes([0, 0, 1, 1, 1, 1, 0, 0]))
    let padded = m.tensor("padded", [1, 8, 8, 3])
    m.op(34, [x, paddings], [padded])
    let w16 = m.tensor("conv/w16", [4, 3, 3, 3], type: 1, data: uint16Bytes((0..<108).map { float16Bits($0 % 7 - 3) }))
    let w = m.tensor("conv/w", [4, 3, 3, 3])
    m.op(6, [w16], [w])
    let b = m.tensor("conv/b", [4], data: floatBytes([0.5, -0.5, 1, 0]))
    let y = m.tensor("conv", [1, 6, 6, 4])
    m.op(3, [padded, w, b], [y], optionsType: 1, options: Options.conv(padding: 1, stride: 1, activation: 3))
    // Depthwise weights [1,3,3,4], sparse: dims (dense 1, dense 3, dense 3, CSR over 4 channels).
    var segments: [Int32] = [0], indices: [Int32] = [], stored: [UInt16] = []
    for cell in 0..<9 {
        for c in 0..<4 where (cell + c) % 2 == 0 {
            indices.append(Int32(c))
            stored.append(float16Bits(cell * 4 + c + 1))
        }
        segments.append(Int32(indices.count))
    }
    let sparsity = FBTable([(0, .ints([0, 1, 2, 3])), (2, .tables([
        FBTable([(0, .i8(0)), (1, .i32(1))]), FBTable([(0, .i8(0)), (1, .i32(3))]), FBTable([(0, .i8(0)), (1, .i32(3))]),
        FBTable([(0, .i8(1)), (2, .u8(1)), (3, .table(FBTable([(0, .ints(segments))]))),
                 (4, .u8(2)), (5, .table(FBTable([(0, .u16s(indices.map { UInt16($0) }))])))]),
    ]))])
    let dwSparse = m.tensor("dw/sparse", [1, 3, 3, 4], type: 1, data: uint16Bytes(stored), sparsity: sparsity)
    let dw16 = m.tensor("dw/w16", [1, 3, 3, 4], type: 1)
    m.op(124, [dwSparse], [dw16])
    let dwW = m.tensor("dw/w", [1, 3, 3, 4])
    m.op(6, [dw16], [dwW])
    let dwB = m.tensor("dw/b", [4], data: floatBytes([0, 0, 0, 0]))
    let z = m.tensor("dw", [1, 3, 3, 4])
    m.op(4, [y, dwW, dwB], [z], optionsType: 2, options: Options.depthwise(padding: 0, stride: 2))
    let s = m.tensor("sum", [1, 3, 3, 4])
    m.op(0, [z, z], [s], optionsType: 11, options: Options.add(activation: 1))
    let out = m.tensor("output", [1, 3, 3, 4])
    m.op(14, [s], [out])
    m.inputs = [x]
    m.outputs = [out]
    return m
}
