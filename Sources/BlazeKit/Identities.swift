import BlazeStages
import BlazeTracking

/// A result whose subjects get stable IDs in video and live-stream mode (BlazeKit's addition).
protocol IdentifiedResult {
    /// The result's subjects, in order, as seen in an upright image of this size.
    func identityObservations(imageWidth: Int, imageHeight: Int) -> [IdentityObservation]
    /// Records one assignment per subject, in order.
    mutating func apply(_ assignments: [IdentityTracker.Assignment])
}

/// The identity tracker of one task's stream, run on its video and live-stream results after the pipeline
/// (which it does not change: the landmarks and their order stay MediaPipe's, the IDs go beside them).
final class ResultIdentities<Result: IdentifiedResult>: @unchecked Sendable {   // used under the task's lock
    private var tracker: IdentityTracker

    init(subject: IdentityTracker.Subject, options: IdentityOptions) throws {
        if let (name, expected, actual) = options.invalidOption {
            throw TaskError.invalidOption(name: "identity.\(name)", expected: expected, actual: actual)
        }
        tracker = IdentityTracker(subject: subject, options: options)
    }

    func assign(_ result: inout Result, imageWidth: Int, imageHeight: Int) {
        result.apply(tracker.assign(result.identityObservations(imageWidth: imageWidth, imageHeight: imageHeight)))
    }

    func reset() { tracker.reset() }
}

extension PoseLandmarkerResult: IdentifiedResult {
    func identityObservations(imageWidth: Int, imageHeight: Int) -> [IdentityObservation] {
        landmarks.map { IdentityObservation(landmarks: $0, imageWidth: imageWidth, imageHeight: imageHeight, weighted: true) }
    }

    mutating func apply(_ assignments: [IdentityTracker.Assignment]) { ids = assignments.map(\.id) }
}

extension HandLandmarkerResult: IdentifiedResult {
    func identityObservations(imageWidth: Int, imageHeight: Int) -> [IdentityObservation] {
        zip(landmarks, handedness).map { hand, categories in
            let p1 = categories.first.map { $0.index == 1 ? $0.score : 1 - $0.score }
            return IdentityObservation(landmarks: hand, imageWidth: imageWidth, imageHeight: imageHeight, weighted: false,
                                       index1Probability: p1)
        }
    }

    /// The IDs; with a voted index, the hand's category becomes the voted one, its score this frame's
    /// probability of it and its names those the stream has used for that index (the label map of the
    /// pipeline: Tasks' "Right"/"Left", or the legacy graph's "Left"/"Right").
    mutating func apply(_ assignments: [IdentityTracker.Assignment]) {
        ids = assignments.map(\.id)
        for (i, assignment) in assignments.enumerated() {
            guard let voted = assignment.votedIndex, let frame = handedness[i].first, frame.index != voted else { continue }
            let name = labelNames[voted]
            handedness[i][0] = ResultCategory(index: voted, score: 1 - frame.score, categoryName: name, displayName: name)
        }
    }

    /// The label of each handedness index in this result's label map, read off the frame's own category.
    private var labelNames: [String] {
        let tasks = handedness.first?.first.map { ($0.index == 0) == ($0.categoryName == "Right") } ?? true
        return tasks ? ["Right", "Left"] : ["Left", "Right"]
    }
}
