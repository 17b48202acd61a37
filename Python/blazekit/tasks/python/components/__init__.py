from . import containers
