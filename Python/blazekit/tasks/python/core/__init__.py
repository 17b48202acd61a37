from . import base_options
