import BlazeModelFormat

/// The lowerings that MediaPipe's face and hand-recrop models need beyond the BlazePose/BlazePalm set: MUL,
/// STRIDED_SLICE, and the custom operators of the attention face mesh (`mediapipe/util/tflite/operations/`,
/// version 2 of each; their options are FlexBuffer maps).
extension TFLiteImporter {
    mutating func lowerMul(_ op: ImportOperator) throws {
        try expectCounts(op, inputs: 2...2)
        guard case let .mul(a) = op.options else { throw OperatorIssue("missing MulOptions") }
        let s0 = shape(op.inputs[0]), s1 = shape(op.inputs[1]), y = shape(op.outputs[0])
        guard s0 == y, s1 == s0 || s1.reduce(1, *) == 1 else {
            throw OperatorIssue("inputs \(s0) and \(s1) with output \(y): only a same-shape or single-element second factor is supported")
        }
        let activationName = try Self.activationName(a)
        let x0 = try floatInput(op.inputs[0], "input 0"), x1 = try floatInput(op.inputs[1], "input 1")
        try emit(.mul, op, inputs: [x0, x1], attributes: ["activation": .string(activationName)])
    }

    /// STRIDED_SLICE with positive strides; begin and end masks and negative indices are resolved here, so the
    /// node holds each axis's first element and stride.
    mutating func lowerStridedSlice(_ op: ImportOperator) throws {
        try expectCounts(op, inputs: 4...4)
        guard case let .stridedSlice(beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask, offset) = op.options else {
            throw OperatorIssue("missing StridedSliceOptions")
        }
        guard ellipsisMask == 0, newAxisMask == 0, shrinkAxisMask == 0, !offset else {
            throw OperatorIssue("ellipsis mask \(ellipsisMask), new axis mask \(newAxisMask), shrink axis mask \(shrinkAxisMask) and offset \(offset): only 0, 0, 0 and false are supported")
        }
        let x = shape(op.inputs[0]), y = shape(op.outputs[0])
        let begin = try ints(op.inputs[1], "begin"), end = try ints(op.inputs[2], "end"), strides = try ints(op.inputs[3], "strides")
        guard begin.count == x.count, end.count == x.count, strides.count == x.count, y.count == x.count else {
            throw OperatorIssue("begin \(begin), end \(end) and strides \(strides) for input \(x) and output \(y): expected one per axis")
        }
        var first: [Int] = []
        for axis in x.indices {
            guard strides[axis] > 0 else { throw OperatorIssue("stride \(strides[axis]) on axis \(axis): only positive strides are supported") }
            func resolve(_ v: Int) -> Int { min(max(v < 0 ? v + x[axis] : v, 0), x[axis]) }
            let b = beginMask & (1 << axis) != 0 ? 0 : resolve(begin[axis])
            let e = endMask & (1 << axis) != 0 ? x[axis] : resolve(end[axis])
            let count = max(0, (e - b + strides[axis] - 1) / strides[axis])
            guard count == y[axis] else {
                throw OperatorIssue("axis \(axis): elements \(b)..<\(e) by \(strides[axis]) give \(count), the output has \(y[axis])")
            }
            first.append(b)
        }
        let input = try floatInput(op.inputs[0], "input")
        try emit(.stridedSlice, op, inputs: [input], attributes: ["begin": .ints(first), "strides": .ints(strides)])
    }

    mutating func lowerCustom(_ op: ImportOperator) throws {
        guard let custom = op.custom else { throw OperatorIssue("not supported") }
        let known = ["Landmarks2TransformMatrix", "TransformTensorBilinear", "TransformLandmarks"]
        guard known.contains(custom.code) else {
            throw OperatorIssue("custom operator '\(custom.code)' is not supported (known: \(known.joined(separator: ", ")))")
        }
        guard custom.version == 2 else {
            throw OperatorIssue("\(custom.code) version \(custom.version) is not supported (only version 2)")
        }
        if custom.code == "TransformLandmarks" { return try lowerTransformLandmarks(op) }   // v2 has no options
        let options: FlexBufferMap
        do {
            options = try FlexBufferMap(bytes: custom.options)
        } catch {
            throw OperatorIssue("\(custom.code): unreadable custom options: \(error)")
        }
        if custom.code == "TransformTensorBilinear" { return try lowerTransformTensorBilinear(op, options) }
        try lowerLandmarksToTransformMatrix(op, options)
    }

    private mutating func lowerLandmarksToTransformMatrix(_ op: ImportOperator, _ m: FlexBufferMap) throws {
        try expectCounts(op, inputs: 1...1)
        let x = shape(op.inputs[0])
        guard x.count == 3, x[0] == 1, x[2] == 3, shape(op.outputs[0]) == [1, 4, 4] else {
            throw OperatorIssue("expected landmarks [1, N, 3] and a [1, 4, 4] output, found \(x) and \(shape(op.outputs[0]))")
        }
        var attributes: [String: AttributeValue] = [:]
        for key in ["left_rotation_idx", "right_rotation_idx", "output_height", "output_width"] {
            guard let v = m.int(key) else { throw OperatorIssue("option '\(key)' is missing or not an integer") }
            attributes[key] = .int(v)
        }
        for key in ["scale_x", "scale_y"] {
            guard let v = m.float(key) else { throw OperatorIssue("option '\(key)' is missing or not a number") }
            attributes[key] = .float(v)
        }
        // MediaPipe's parser reads a missing target rotation as 0 and pairs the subset; an odd last index is paired with itself.
        attributes["target_rotation_radians"] = .float(m.float("target_rotation_radians") ?? 0)
        guard let subset = m.ints("subset_idxs"), !subset.isEmpty, subset.allSatisfy({ $0 >= 0 && $0 < x[1] }) else {
            throw OperatorIssue("option 'subset_idxs' must be a non-empty list of landmark indices below \(x[1])")
        }
        attributes["subset_idxs"] = .ints(subset)
        let input = try floatInput(op.inputs[0], "landmarks")
        try emit(.landmarksToTransformMatrix, op, inputs: [input], attributes: attributes)
    }

    private mutating func lowerTransformTensorBilinear(_ op: ImportOperator, _ m: FlexBufferMap) throws {
        try expectCounts(op, inputs: 2...2)
        let x = shape(op.inputs[0]), y = shape(op.outputs[0])
        guard x.count == 4, x[0] == 1, y.count == 4, y[0] == 1, y[3] == x[3], shape(op.inputs[1]) == [1, 4, 4] else {
            throw OperatorIssue("expected input [1, H, W, C], matrix [1, 4, 4] and output [1, h, w, C], found \(x), \(shape(op.inputs[1])) and \(y)")
        }
        if let h = m.int("output_height"), let w = m.int("output_width"), [h, w] != [y[1], y[2]] {
            throw OperatorIssue("options give a \(h)x\(w) output, the output tensor is \(y)")
        }
        let input = try floatInput(op.inputs[0], "input"), matrix = try floatInput(op.inputs[1], "matrix")
        try emit(.transformTensorBilinear, op, inputs: [input, matrix])
    }

    private mutating func lowerTransformLandmarks(_ op: ImportOperator) throws {
        try expectCounts(op, inputs: 2...2)
        let x = shape(op.inputs[0])
        guard x.count == 3, x[0] == 1, x[2] == 2 || x[2] == 3, shape(op.outputs[0]) == x, shape(op.inputs[1]) == [1, 4, 4] else {
            throw OperatorIssue("expected landmarks [1, N, 2 or 3], matrix [1, 4, 4] and the landmarks' shape out, found \(x), \(shape(op.inputs[1])) and \(shape(op.outputs[0]))")
        }
        let input = try floatInput(op.inputs[0], "landmarks"), matrix = try floatInput(op.inputs[1], "matrix")
        try emit(.transformLandmarks, op, inputs: [input, matrix])
    }
}
