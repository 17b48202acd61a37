/// `NonMaxSuppressionCalculator` (`mediapipe/calculators/util/non_max_suppression_calculator.cc`),
/// WEIGHTED algorithm with the `INTERSECTION_OVER_UNION` overlap, as both BlazePose and BlazePalm
/// detectors configure it. `max_num_detections` is not enforced by MediaPipe's weighted loop and
/// `min_score_threshold` is unset for these graphs, so neither is modelled.
public enum NonMaxSuppression {
    /// IoU of the two relative boxes, computed like `OverlapSimilarity` on `Rectangle_f`
    /// (`mediapipe/framework/deps/rectangle.h`): boxes that do not intersect (edges touching
    /// count as intersecting) give 0; otherwise `I / (A1 + A2 − I)`, or 0 if that denominator ≤ 0.
    public static func intersectionOverUnion(_ a: Detection, _ b: Detection) -> Float {
        let ax0 = a.xmin, ay0 = a.ymin, ax1 = a.xmin + a.width, ay1 = a.ymin + a.height
        let bx0 = b.xmin, by0 = b.ymin, bx1 = b.xmin + b.width, by1 = b.ymin + b.height
        let aEmpty = ax0 > ax1 || ay0 > ay1
        let bEmpty = bx0 > bx1 || by0 > by1
        let intersects = !(aEmpty || bEmpty || bx1 < ax0 || ax1 < bx0 || by1 < ay0 || ay1 < by0)
        if !intersects { return 0 }
        let ix0 = max(ax0, bx0), iy0 = max(ay0, by0), ix1 = min(ax1, bx1), iy1 = min(ay1, by1)
        let intersection = (ix1 - ix0) * (iy1 - iy0)
        let areaA = (ax1 - ax0) * (ay1 - ay0)
        let areaB = (bx1 - bx0) * (by1 - by0)
        let normalization = areaA + areaB - intersection
        return normalization > 0 ? intersection / normalization : 0
    }

    /// Weighted NMS. Detections are ordered by descending score (MediaPipe uses an unstable
    /// `std::sort`; here equal scores keep their input order). Repeatedly: take the top remaining
    /// detection; every remaining detection (itself included) with IoU **>** `iouThreshold`
    /// against it is a candidate; emit a detection whose box corners (`xmin, ymin, xmax, ymax`) and
    /// keypoints are the score-weighted mean of the candidates' (accumulated in `Float` in
    /// descending-score order), with the top detection's score; drop the candidates.
    /// If the top detection is not its own candidate (a zero-area box: IoU with itself is 0),
    /// MediaPipe emits it unchanged and **stops** — that is reproduced.
    ///
    /// Output order: descending score of the top detections.
    public static func weighted(_ detections: [Detection], iouThreshold: Float) -> [Detection] {
        var remaining = detections.indices.sorted { lhs, rhs in
            let l = detections[lhs].score, r = detections[rhs].score
            return l > r || (!(r > l) && lhs < rhs)
        }
        var output: [Detection] = []
        while let topIndex = remaining.first {
            let top = detections[topIndex]
            var candidates: [Int] = []
            var rest: [Int] = []
            for index in remaining {
                if intersectionOverUnion(detections[index], top) > iouThreshold {
                    candidates.append(index)
                } else {
                    rest.append(index)
                }
            }
            var weighted = top
            if !candidates.isEmpty {
                var wxmin: Float = 0, wymin: Float = 0, wxmax: Float = 0, wymax: Float = 0, total: Float = 0
                var keypointSums = [SIMD2<Float>](repeating: .zero, count: top.keypoints.count)
                for index in candidates {
                    let c = detections[index]
                    let s = c.score
                    total += s
                    wxmin += c.xmin * s
                    wymin += c.ymin * s
                    wxmax += (c.xmin + c.width) * s
                    wymax += (c.ymin + c.height) * s
                    for k in keypointSums.indices {
                        keypointSums[k].x += c.keypoints[k].x * s
                        keypointSums[k].y += c.keypoints[k].y * s
                    }
                }
                weighted.xmin = wxmin / total
                weighted.ymin = wymin / total
                weighted.width = wxmax / total - weighted.xmin
                weighted.height = wymax / total - weighted.ymin
                for k in keypointSums.indices {
                    weighted.keypoints[k] = SIMD2(keypointSums[k].x / total, keypointSums[k].y / total)
                }
            }
            output.append(weighted)
            if rest.count == remaining.count { break }
            remaining = rest
        }
        return output
    }
}
