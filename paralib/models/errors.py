"""Errors of the model folder, importable without torch (the CLI catches them)."""

from paralib.errors import ConfigurationError, MissingError


class ModelLoadError(MissingError, ValueError):
    """A model folder is missing, incomplete or does not match its weights."""


class ModelFolderError(ConfigurationError, ValueError):
    """An output folder that paralib did not make: it is never replaced."""
