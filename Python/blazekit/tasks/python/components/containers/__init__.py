from . import category
from . import landmark
Category = category.Category
Landmark = landmark.Landmark
NormalizedLandmark = landmark.NormalizedLandmark
