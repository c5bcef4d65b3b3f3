# Dies of a signal it causes itself.
import ctypes
ctypes.string_at(0)
