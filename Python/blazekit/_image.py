"""mp.Image and mp.ImageFormat with MediaPipe 0.10.14's names, over numpy arrays."""
import ctypes
import enum

import numpy as np

from . import _capi


class ImageFormat(enum.IntEnum):
    """MediaPipe's ImageFormat values (the ones a numpy-backed image can have)."""
    UNKNOWN = 0
    SRGB = 1
    SRGBA = 2
    GRAY8 = 3
    GRAY16 = 4
    SRGB48 = 7
    SRGBA64 = 8
    VEC32F1 = 9
    SBGRA = 11
    VEC32F2 = 12


_CHANNELS = {ImageFormat.SRGB: 3, ImageFormat.SRGBA: 4, ImageFormat.SBGRA: 4, ImageFormat.GRAY8: 1,
             ImageFormat.GRAY16: 1, ImageFormat.SRGB48: 3, ImageFormat.SRGBA64: 4, ImageFormat.VEC32F1: 1,
             ImageFormat.VEC32F2: 2}
_DTYPES = {ImageFormat.GRAY16: np.uint16, ImageFormat.SRGB48: np.uint16, ImageFormat.SRGBA64: np.uint16,
           ImageFormat.VEC32F1: np.float32, ImageFormat.VEC32F2: np.float32}
_PIXEL_FORMATS = {ImageFormat.SRGB: _capi.PIXEL_RGB, ImageFormat.SRGBA: _capi.PIXEL_RGBA,
                  ImageFormat.SBGRA: _capi.PIXEL_BGRA, ImageFormat.GRAY8: _capi.PIXEL_GRAY}


class Image:
    """An image held in a numpy array (MediaPipe's mp.Image on the CPU). The data is copied when the
    image is made and never changes; numpy_view() returns a read-only view of it."""

    def __init__(self, image_format: ImageFormat, data: np.ndarray):
        image_format = ImageFormat(image_format)
        channels = _CHANNELS.get(image_format)
        if channels is None:
            raise ValueError(f"Unsupported image format: {image_format.name}")
        data = np.asarray(data)
        want = _DTYPES.get(image_format, np.uint8)
        if data.dtype != want:
            raise ValueError(f"Expected a numpy array of {np.dtype(want).name} for {image_format.name}, got {data.dtype}")
        if data.ndim == 2 and channels == 1:
            pass
        elif data.ndim == 3 and data.shape[2] == channels:
            if channels == 1:
                data = data[:, :, 0]
        else:
            raise ValueError(f"Expected an array of shape (height, width{'' if channels == 1 else f', {channels}'}) "
                             f"for {image_format.name}, got {data.shape}")
        if data.shape[0] < 1 or data.shape[1] < 1:
            raise ValueError(f"Image size {data.shape[1]}x{data.shape[0]} is empty")
        self._data = np.array(data, copy=True, order="C")
        self._data.flags.writeable = False
        self._format = image_format

    @classmethod
    def create_from_file(cls, file_name: str) -> "Image":
        """Decodes a PNG or JPEG file to an SRGB image (as MediaPipe's, no EXIF rotation applied)."""
        pixels = ctypes.POINTER(ctypes.c_uint8)()
        w, h = ctypes.c_int32(), ctypes.c_int32()
        status = _capi.lib.blazekit_image_decode_file(str(file_name).encode(), ctypes.byref(pixels), ctypes.byref(w),
                                                      ctypes.byref(h), None)
        if status != _capi.OK:
            raise RuntimeError(f"Image decoding failed: {file_name}: {_capi.last_error()}")
        try:
            array = np.ctypeslib.as_array(pixels, shape=(h.value, w.value, 3)).copy()
        finally:
            _capi.lib.blazekit_pixels_free(pixels)
        return cls(image_format=ImageFormat.SRGB, data=array)

    @property
    def width(self) -> int:
        return int(self._data.shape[1])

    @property
    def height(self) -> int:
        return int(self._data.shape[0])

    @property
    def channels(self) -> int:
        return _CHANNELS[self._format]

    @property
    def image_format(self) -> ImageFormat:
        return self._format

    @property
    def step(self) -> int:
        return int(self._data.strides[0])

    def numpy_view(self) -> np.ndarray:
        """A read-only view of the pixels: (height, width, channels), or (height, width) for one channel."""
        return self._data

    def is_empty(self) -> bool:
        return self._data.size == 0

    def is_contiguous(self) -> bool:
        return True

    def is_aligned(self, alignment_boundary: int) -> bool:
        return self._data.ctypes.data % alignment_boundary == 0

    def uses_gpu(self) -> bool:
        return False

    def _c_image(self) -> _capi.Image:
        """The C ABI's view of the pixels (valid while this image lives)."""
        fmt = _PIXEL_FORMATS.get(self._format)
        if fmt is None:
            raise ValueError(f"Image format {self._format.name} is not supported by the landmarkers; "
                             "use SRGB, SRGBA, SBGRA or GRAY8")
        image = _capi.Image()
        image.struct_size = ctypes.sizeof(_capi.Image)
        image.pixels = self._data.ctypes.data
        image.byte_count = self._data.nbytes
        image.width = self.width
        image.height = self.height
        image.bytes_per_row = self._data.strides[0]
        image.format = fmt
        image.orientation = 0
        return image
