/// The release version: the one place it is written. `forcestage --version`,
/// `forcestage-bench --version`, the man page and the Debian package all read it.
public let forceStageVersion = "0.1.0"
