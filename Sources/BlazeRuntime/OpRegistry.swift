import BlazeModelFormat

/// Plans one kind of node: validates its attributes, shapes and constants, and returns the step
/// that runs it. Adding an op: a file in `Ops/`, its kernel and reference twin in BlazeKernels,
/// one line in ``OpRegistry/planners``, and a test.
protocol OpPlanner {
    static var kind: OpKind { get }
    static func plan(_ binding: NodeBinding) throws -> any ExecutionStep
}

/// The table from op kind to planner. A test checks that every ``OpKind`` is registered.
enum OpRegistry {
    nonisolated(unsafe) static let planners: [OpKind: any OpPlanner.Type] = {
        let all: [any OpPlanner.Type] = [
            Conv2DOp.self, DepthwiseConv2DOp.self, AddOp.self, PReLUOp.self, MaxPool2DOp.self, PadOp.self,
            ResizeBilinearOp.self, DepthToSpaceOp.self, ReshapeOp.self, ConcatenationOp.self, MeanOp.self,
            FullyConnectedOp.self, LogisticOp.self,
            ReluOp.self, MulOp.self, StridedSliceOp.self,
            LandmarksToTransformMatrixOp.self, TransformTensorBilinearOp.self, TransformLandmarksOp.self,
        ]
        return Dictionary(uniqueKeysWithValues: all.map { ($0.kind, $0) })
    }()

    /// Kinds with no planner (empty when the build is complete).
    static var unregistered: [OpKind] { OpKind.allCases.filter { planners[$0] == nil } }
}

