import ArgumentParser
import BlazeKit
import BlazeVision
import Foundation

/// `blaze body`: Vision-style body pose (19 joints) for each photo, as JSON Lines.
struct BodyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "body",
        abstract: "Detect body poses in photos with Apple Vision's conventions and print one JSON object per photo.",
        discussion: """
            Each line: {"image":NAME,"width":W,"height":H,"observations":[{"joints":{"nose":[x,y,confidence],…19}}]}: \
            VNDetectHumanBodyPoseRequest's 19 joints (neck and root are the shoulders' and hips' midpoints), x and y \
            normalized with y measured from the bottom, as Vision reports them; confidence is 0 for a joint Vision \
            would not report (BlazePose visibility or presence below 0.5, or outside the image). A photo that cannot be read gives \
            {"image":NAME,"error":MESSAGE}; the others still run and the exit status is 1.
            """)

    @OptionGroup var input: InputOptions
    @Option(help: "The most people per photo.") var maxPeople = 5
    @Option(help: "full or lite.") var model = "full"

    func validate() throws {
        guard !input.video, input.raw == nil else { throw ValidationError("blaze body takes photos: --video and --raw are for pose and hand") }
        guard ["full", "lite"].contains(model) else { throw ValidationError("--model expects full or lite, got \(model)") }
        guard maxPeople > 0 else { throw ValidationError("--max-people expects a positive count, got \(maxPeople)") }
    }

    func run() throws {
        let options = BodyPoseOptions()
        options.maximumPeopleCount = maxPeople
        options.model = model == "lite" ? .lite : .full
        input.apply(to: options.baseOptions)
        let task = CommandTask<BodyPoseDefinition>(options: options, record: { FrameRecord(source: $1, key: "observations", items: $0) },
                                                   detectorName: "pose detector", takesVideo: false)
        try MediaRun(options: input, task: task).run()
    }
}

/// Vision's body pose request as a task of the CLI's own (``TaskDefinition``): photos in, Vision's 19 joints
/// per person out. The request loads BlazeKit's pose networks itself, so the definition names no models.
enum BodyPoseDefinition: TaskDefinition {
    static func modelRoles(for options: BodyPoseOptions) -> [TaskModelRole] { [] }

    static func makePipeline(options: BodyPoseOptions, resources: TaskResources) throws -> BodyPosePipeline {
        try BodyPosePipeline(options: options)
    }

    static func deliverLiveStreamResult(_ result: [BodyObservation]?, timestampInMilliseconds: Int, error: (any Error)?,
                                        task: LandmarkerTask<Self>, options: BodyPoseOptions) {}
}

/// `blaze body`'s options: the request's people count and pose model, with the base options' thread count and
/// kernel planning.
final class BodyPoseOptions: TaskOptions {
    var maximumPeopleCount = 5
    var model: PoseLandmarkerModel = .full

    required init() {}

    override func copyOptions(from other: TaskOptions) {
        super.copyOptions(from: other)
        guard let other = other as? BodyPoseOptions else { return }
        (maximumPeopleCount, model) = (other.maximumPeopleCount, other.model)
    }
}

/// Runs one `VNDetectHumanBodyPoseRequest` per photo and keeps each observation's recognized joints.
final class BodyPosePipeline: TaskPipeline {
    private let request = VNDetectHumanBodyPoseRequest()

    init(options: BodyPoseOptions) throws {
        request.maximumPeopleCount = options.maximumPeopleCount
        request.model = options.model
        request.threadCount = options.baseOptions.threadCount
        request.kernelPlanning = options.baseOptions.kernelPlanning
        // Loads the models once, up front, so a bad option is reported before any photo is read.
        try VNImageRequestHandler(image: Image(rgb: [0, 0, 0], width: 1, height: 1)).perform([request])
    }

    func process(_ image: MPImage, timestampInMilliseconds: Int, tracking: Bool) throws -> [BodyObservation] {
        try VNImageRequestHandler(image: image).perform([request])
        return (request.bodyResults ?? []).map { observation in
            var joints: [String: [Float]] = [:]
            for joint in observation.availableJointNames {
                if let p = try? observation.recognizedPoint(joint) { joints["\(joint)"] = [Float(p.x), Float(p.y), p.confidence] }
            }
            return BodyObservation(joints: joints)
        }
    }
}

/// One person of a `blaze body` line: Vision's joints by name.
struct BodyObservation: Encodable {
    var joints: [String: [Float]]
}
