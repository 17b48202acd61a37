from . import vision_task_running_mode
