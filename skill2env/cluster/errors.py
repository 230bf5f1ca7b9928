"""What goes wrong starting or stopping the pieces of a local cluster."""


class ClusterError(RuntimeError):
    """A service of the local cluster did not start or stop."""
