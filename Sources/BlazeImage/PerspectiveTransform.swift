/// A 3×3 projective transform (row-major, `Double`), computed and inverted exactly as OpenCV 3.4 does
/// (the OpenCV statically linked into MediaPipe 0.10.14), so that warps reproduce MediaPipe bit for bit.
///
/// A point `(x, y)` maps to `((m0·x + m1·y + m2)/w, (m3·x + m4·y + m5)/w)` with `w = m6·x + m7·y + m8`.
public struct PerspectiveTransform: Sendable, Equatable {
    /// The nine elements, row-major.
    public var elements: [Double]

    /// A transform from nine row-major elements.
    public init(rowMajor elements: [Double]) {
        precondition(elements.count == 9, "PerspectiveTransform needs 9 elements, got \(elements.count)")
        self.elements = elements
    }

    /// The identity transform.
    public static let identity = PerspectiveTransform(rowMajor: [1, 0, 0, 0, 1, 0, 0, 0, 1])

    /// `cv::getPerspectiveTransform(src, dst)` for `Point2f` corners: builds OpenCV's 8×8 system (the
    /// products `−src.x·dst.x` etc. are formed in `Float`, as in OpenCV) and solves it with OpenCV's
    /// `DECOMP_LU` (partial pivoting, double precision); `m8 = 1`. If the system is singular, OpenCV's
    /// result is returned: all zeros with `m8 = 1`.
    ///
    /// - Parameters: sourceQuad, destinationQuad: exactly four corresponding points each.
    public init(sourceQuad: [SIMD2<Float>], destinationQuad: [SIMD2<Float>]) {
        precondition(sourceQuad.count == 4 && destinationQuad.count == 4,
                     "getPerspectiveTransform needs 4 source and 4 destination points, got \(sourceQuad.count) and \(destinationQuad.count)")
        var a = [Double](repeating: 0, count: 64)
        var b = [Double](repeating: 0, count: 8)
        for i in 0..<4 {
            let s = sourceQuad[i], d = destinationQuad[i]
            a[i * 8 + 0] = Double(s.x); a[(i + 4) * 8 + 3] = Double(s.x)
            a[i * 8 + 1] = Double(s.y); a[(i + 4) * 8 + 4] = Double(s.y)
            a[i * 8 + 2] = 1; a[(i + 4) * 8 + 5] = 1
            a[i * 8 + 6] = Double(-s.x * d.x)
            a[i * 8 + 7] = Double(-s.y * d.x)
            a[(i + 4) * 8 + 6] = Double(-s.x * d.y)
            a[(i + 4) * 8 + 7] = Double(-s.y * d.y)
            b[i] = Double(d.x)
            b[i + 4] = Double(d.y)
        }
        var m: [Double]
        if openCVSolveLU(&a, &b, n: 8) {
            m = b
        } else {
            m = [Double](repeating: 0, count: 8)
        }
        m.append(1)
        self.elements = m
    }

    /// As the `SIMD2<Float>` initializer, for `Double` points: they are rounded to
    /// `Float` first, because OpenCV's `getPerspectiveTransform` only accepts `Point2f` (`CV_32F`) input.
    public init(sourceQuad: [SIMD2<Double>], destinationQuad: [SIMD2<Double>]) {
        self.init(sourceQuad: sourceQuad.map { SIMD2<Float>($0) }, destinationQuad: destinationQuad.map { SIMD2<Float>($0) })
    }

    /// `cv::invert(M, DECOMP_LU)` for a 3×3 double matrix: OpenCV's closed form (adjugate times
    /// `1/det3`, same operation order). A singular matrix (determinant exactly 0) gives all zeros, as
    /// OpenCV does.
    public func inverted() -> PerspectiveTransform {
        let s = elements
        func g(_ r: Int, _ c: Int) -> Double { s[r * 3 + c] }
        var d = g(0, 0) * (g(1, 1) * g(2, 2) - g(1, 2) * g(2, 1))
            - g(0, 1) * (g(1, 0) * g(2, 2) - g(1, 2) * g(2, 0))
            + g(0, 2) * (g(1, 0) * g(2, 1) - g(1, 1) * g(2, 0))
        guard d != 0 else { return PerspectiveTransform(rowMajor: [Double](repeating: 0, count: 9)) }
        d = 1.0 / d
        return PerspectiveTransform(rowMajor: [
            (g(1, 1) * g(2, 2) - g(1, 2) * g(2, 1)) * d,
            (g(0, 2) * g(2, 1) - g(0, 1) * g(2, 2)) * d,
            (g(0, 1) * g(1, 2) - g(0, 2) * g(1, 1)) * d,
            (g(1, 2) * g(2, 0) - g(1, 0) * g(2, 2)) * d,
            (g(0, 0) * g(2, 2) - g(0, 2) * g(2, 0)) * d,
            (g(0, 2) * g(1, 0) - g(0, 0) * g(1, 2)) * d,
            (g(1, 0) * g(2, 1) - g(1, 1) * g(2, 0)) * d,
            (g(0, 1) * g(2, 0) - g(0, 0) * g(2, 1)) * d,
            (g(0, 0) * g(1, 1) - g(0, 1) * g(1, 0)) * d,
        ])
    }

    /// Applies the transform to a point (with the perspective division).
    public func apply(_ p: SIMD2<Double>) -> SIMD2<Double> {
        let m = elements
        let w = m[6] * p.x + m[7] * p.y + m[8]
        return SIMD2((m[0] * p.x + m[1] * p.y + m[2]) / w, (m[3] * p.x + m[4] * p.y + m[5]) / w)
    }
}

/// OpenCV's `LUImpl<double>` (`modules/core/src/matrix_decomp.cpp`, 3.4) for one right-hand side:
/// Gaussian elimination with partial pivoting (`eps = DBL_EPSILON·100`), back substitution by division.
/// Returns false when a pivot is below eps (singular).
func openCVSolveLU(_ a: inout [Double], _ b: inout [Double], n m: Int) -> Bool {
    let eps = Double.ulpOfOne * 100
    for i in 0..<m {
        var k = i
        for j in (i + 1)..<max(m, i + 1) where abs(a[j * m + i]) > abs(a[k * m + i]) { k = j }
        if abs(a[k * m + i]) < eps { return false }
        if k != i {
            for j in i..<m { a.swapAt(i * m + j, k * m + j) }
            b.swapAt(i, k)
        }
        let d = -1 / a[i * m + i]
        for j in (i + 1)..<max(m, i + 1) {
            let alpha = a[j * m + i] * d
            for kk in (i + 1)..<m { a[j * m + kk] += alpha * a[i * m + kk] }
            b[j] += alpha * b[i]
        }
    }
    for i in stride(from: m - 1, through: 0, by: -1) {
        var s = b[i]
        for kk in (i + 1)..<max(m, i + 1) { s -= a[i * m + kk] * b[kk] }
        b[i] = s / a[i * m + i]
    }
    return true
}
