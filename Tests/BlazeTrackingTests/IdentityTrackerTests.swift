@testable import BlazeTracking
import Foundation
import Testing

/// ``IdentityTracker`` on synthetic subjects with known identities.
@Suite struct IdentityTrackerTests {
    /// A 33-point figure about 200 px tall, its top centre at (x, y), arms `spread` px out.
    static func figure(at x: Float, _ y: Float, spread: Float = 40) -> IdentityObservation {
        let points = (0..<33).map { i -> SIMD2<Float> in
            let row = Float(i / 4), side: Float = i % 2 == 0 ? -1 : 1
            return SIMD2(x + side * spread * Float(i % 4) / 3, y + row * 25)
        }
        return IdentityObservation(points: points, weights: Array(repeating: 1, count: 33))
    }

    /// The ID of each listed subject, by the subject's true name, frame by frame.
    static func run(_ frames: [[(name: String, observation: IdentityObservation)]],
                    options: IdentityOptions = IdentityOptions()) -> [[String: Int]] {
        var tracker = IdentityTracker(subject: .pose, options: options)
        return frames.map { frame in
            let ids = tracker.assign(frame.map(\.observation)).map(\.id)
            return Dictionary(uniqueKeysWithValues: zip(frame.map(\.name), ids))
        }
    }

    @Test func crossingPeopleKeepTheirIDsWhateverTheListOrder() {
        // A walks right, B left; they pass through each other at frame 20, and the list order flips every frame.
        let frames = (0..<40).map { t -> [(name: String, observation: IdentityObservation)] in
            let a = ("A", Self.figure(at: 100 + Float(t) * 10, 100, spread: 60))
            let b = ("B", Self.figure(at: 500 - Float(t) * 10, 110, spread: 30))
            return t % 2 == 0 ? [a, b] : [b, a]
        }
        let ids = Self.run(frames)
        #expect(Set(ids.map { $0["A"]! }) == [ids[0]["A"]!])
        #expect(Set(ids.map { $0["B"]! }) == [ids[0]["B"]!])
        #expect(ids[0]["A"] != ids[0]["B"])
    }

    @Test func aShortAbsenceKeepsTheIDALongOneRetiresItAndIDsAreNeverReused() {
        var frames: [[(name: String, observation: IdentityObservation)]] = []
        for t in 0..<60 {
            var frame = [("A", Self.figure(at: 100, 100))]
            if t < 10 || (20..<30).contains(t) || t >= 50 { frame.append(("B", Self.figure(at: 400, 100))) }
            frames.append(frame)
        }
        let ids = Self.run(frames, options: IdentityOptions(maxAbsentFrames: 15))
        #expect(ids[25]["B"] == ids[0]["B"])            // back after 10 unseen frames
        #expect(ids[55]["B"] != ids[0]["B"])            // back after 20: a new ID…
        #expect(ids[55]["B"]! > max(ids[0]["A"]!, ids[0]["B"]!))   // …never one given before
        #expect(Set(ids.map { $0["A"]! }).count == 1)
    }

    @Test func theSameFramesGiveTheSameIDs() {
        let frames = (0..<30).map { t -> [(name: String, observation: IdentityObservation)] in
            (0..<5).map { k -> (name: String, observation: IdentityObservation) in
                let x = 80 * Float(k) + Float((t * (k + 3)) % 17), y = 100 + Float((t * k) % 11)
                return ("P\(k)", Self.figure(at: x, y))
            }
        }
        #expect(Self.run(frames) == Self.run(frames))
        #expect(Set(Self.run(frames).last!.values).count == 5)
    }

    @Test func fastSwapsKeepTheIDs() {
        // A and B, still, swap places in 6 frames (45 px a frame, a fifth of their height), then stay.
        let frames = (0..<20).map { t -> [(name: String, observation: IdentityObservation)] in
            let k = Float(min(max(t - 5, 0), 6)) / 6
            return [("A", Self.figure(at: 200 + 270 * k, 100)), ("B", Self.figure(at: 470 - 270 * k, 100, spread: 20))]
        }
        let ids = Self.run(frames)
        #expect(Set(ids.map { $0["A"]! }).count == 1 && Set(ids.map { $0["B"]! }).count == 1 && ids[0]["A"] != ids[0]["B"])
    }

    @Test func aDissimilarSubjectStartsANewTrack() {
        // The same place, but one frame later a figure of another size and shape: below minSimilarity 0.9.
        let frames = [[("A", Self.figure(at: 100, 100))], [("B", Self.figure(at: 300, 300, spread: 5))]]
        let ids = Self.run(frames, options: IdentityOptions(minSimilarity: 0.9))
        #expect(ids[1]["B"] != ids[0]["A"])
    }

    @Test func resetForgetsTracksButNeverReusesIDs() {
        var tracker = IdentityTracker(subject: .hand)
        let hand = IdentityObservation(points: (0..<21).map { SIMD2(Float($0), Float($0 * 2)) }, weights: Array(repeating: 1, count: 21))
        let first = tracker.assign([hand])[0].id
        #expect(tracker.assign([hand])[0].id == first)
        tracker.reset()
        #expect(tracker.assign([hand])[0].id == first + 1)
    }

    @Test func handednessVoteHoldsThroughFlipsAndFollowsStrongEvidence() {
        var tracker = IdentityTracker(subject: .hand, options: IdentityOptions(votesHandedness: true))
        var hand = IdentityObservation(points: (0..<21).map { SIMD2(100 + Float($0), 100 + Float($0 * 2)) },
                                       weights: Array(repeating: 1, count: 21))
        // Mostly index 1 with confidence, with weak flips to 0 in between.
        let probabilities: [Float] = [0.9, 0.95, 0.4, 0.3, 0.92, 0.45, 0.97, 0.35]
        var votes: [Int?] = []
        for p in probabilities {
            hand.index1Probability = p
            votes.append(tracker.assign([hand])[0].votedIndex)
        }
        #expect(votes == Array(repeating: 1, count: probabilities.count))
        // Without voting there is no voted index.
        var plain = IdentityTracker(subject: .hand)
        #expect(plain.assign([hand])[0].votedIndex == nil)
    }

    @Test func optionsOutOfRangeAreNamed() {
        #expect(IdentityOptions(maxAbsentFrames: -1).invalidOption?.name == "maxAbsentFrames")
        #expect(IdentityOptions(minSimilarity: 1.5).invalidOption?.name == "minSimilarity")
        #expect(IdentityOptions(minSimilarity: .nan).invalidOption?.name == "minSimilarity")
        #expect(IdentityOptions().invalidOption == nil)
    }
}
