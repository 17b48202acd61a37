// What `import BlazeKit` gives: the task API (options, results, images, errors, running modes, model choice)
// and nothing of the engine. The declarations below live in engine modules and are part of that API, so they
// are re-exported one by one; everything else of BlazeImage, BlazeStages, BlazeRuntime and BlazeModelFormat
// (sessions, kernels, crops, NMS, trackers) needs an explicit `import` of its module.

// Images: MediaPipe's MPImage is BlazeImage's `Image` (see MPImage.swift).
@_exported import struct BlazeImage.Image
@_exported import enum BlazeImage.ImageOrientation
@_exported import enum BlazeImage.PixelFormat
@_exported import enum BlazeImage.ImageError

// Results: landmarks, and the landmark names and skeletons MediaPipe's drawing utilities use.
@_exported import struct BlazeStages.NormalizedLandmark
@_exported import struct BlazeStages.Landmark
@_exported import enum BlazeStages.PoseLandmarkName
@_exported import struct BlazeStages.PoseConnection
@_exported import enum BlazeStages.PoseSkeleton
@_exported import enum BlazeStages.HandLandmarkName
@_exported import struct BlazeStages.HandConnection
@_exported import enum BlazeStages.HandSkeleton
@_exported import enum BlazeStages.FaceMeshConnections

// Errors a task's creation may throw for a model file (besides TaskError): the file's format, and a model
// the runtime cannot plan.
@_exported import enum BlazeModelFormat.ModelFormatError
@_exported import enum BlazeRuntime.RuntimeError

// How a task's networks pick their kernels: BaseOptions.kernelPlanning (BlazeKit's addition).
@_exported import enum BlazeRuntime.Planning

// Identities across video frames (BlazeKit's addition): the options of PoseLandmarkerOptions.identity and
// HandLandmarkerOptions.identity.
@_exported import struct BlazeTracking.IdentityOptions
