"""MediaPipe's legacy graphs with another float order: `LEGACY_MP_KERNELS=tflite` (read by `_record.py`, with
`LEGACY_MP=mediapipe` only) runs every `InferenceCalculator` of mediapipe's own graphs on TensorFlow Lite's
built-in CPU kernels instead of the XNNPACK delegate the graphs name. The graph, the models, the pixels and every
other number stay the same; only the order of the networks' float operations changes.

What it is for: the floor of "the same answers". A run of Google's samples under mediapipe with TFLite kernels,
compared to the normal run (`compare_legacy.py`), shows how far MediaPipe moves from itself when only float
rounding changes: where a hand or face presence score sits near its threshold, or a tracked region feeds back,
rounding alone flips parts on and off. BlazeKit's run is then judged against that floor.

How: `SolutionBase.__init__` is wrapped. A graph given as a `.binarypb` path is expanded (subgraphs inlined, as
mediapipe does itself), each inference node's `delegate` is set to `tflite {}`, and the expanded graph is passed
as `graph_config`; node names are unchanged, so the solutions' `calculator_params` still find their nodes.
"""
import os


def use_tflite_kernels(solution_base):
    from mediapipe.calculators.tensor import inference_calculator_pb2
    from mediapipe.framework import calculator_pb2
    from mediapipe.python._framework_bindings import validated_graph_config

    options_type = inference_calculator_pb2.InferenceCalculatorOptions
    cls = solution_base.SolutionBase
    original_init = cls.__init__

    def switch(options):
        options.delegate.Clear()
        options.delegate.tflite.SetInParent()

    def expanded_with_tflite_kernels(binary_graph_path):
        root = os.sep.join(os.path.abspath(solution_base.__file__).split(os.sep)[:-3])
        validated = validated_graph_config.ValidatedGraphConfig()
        validated.initialize(binary_graph_path=os.path.join(root, binary_graph_path))
        config = calculator_pb2.CalculatorGraphConfig()
        config.ParseFromString(validated.binary_config)
        switched = 0
        for node in config.node:
            if not node.calculator.startswith("InferenceCalculator"):
                continue
            if node.options.HasExtension(options_type.ext):
                switch(node.options.Extensions[options_type.ext])
                switched += 1
            for packed in node.node_options:
                if packed.type_url.endswith("mediapipe.InferenceCalculatorOptions"):
                    options = options_type()
                    options.ParseFromString(packed.value)
                    switch(options)
                    packed.value = options.SerializeToString()
                    switched += 1
        if switched == 0:
            raise RuntimeError(f"_tflite_kernels: no InferenceCalculator options found in {binary_graph_path}")
        return config

    def __init__(self, binary_graph_path=None, graph_config=None, *args, **kwargs):
        if binary_graph_path:
            graph_config, binary_graph_path = expanded_with_tflite_kernels(binary_graph_path), None
        original_init(self, binary_graph_path, graph_config, *args, **kwargs)

    cls.__init__ = __init__
