/// The option tables `forcestage-service` parses `run` and `status` from, as
/// rows: what each option is called, whether it takes a value and under which
/// name, its help, its default and its accepted values. `forcestage`'s
/// ArgumentParser commands (Sources/ServiceCommand) must declare exactly these
/// options, in this order, with the same help and defaults; a test compares the
/// rows with what those commands declare (`--experimental-dump-help`).
extension ServiceArguments {
    /// One option of `run` or `status`.
    public struct OptionRow: Equatable, Sendable, CustomStringConvertible {
        /// The long name without its dashes (`budget-ms`).
        public var name: String
        /// The value's name in help and usage (`nil`: a flag, which takes no value).
        public var valueName: String?
        /// The help text, without the default or the values help appends.
        public var help: String
        /// The default as help shows it (`nil`: none shown).
        public var defaultText: String?
        /// The accepted values, where the option has a fixed set (else empty).
        public var values: [String]
        /// Whether the command refuses to run without it.
        public var isRequired: Bool
        /// Whether help leaves it out (an old spelling still accepted).
        public var isHidden: Bool

        public var description: String {
            "--\(name)\(valueName.map { " <\($0)>" } ?? "")\(isRequired ? " (required)" : "")"
                + "\(defaultText.map { " default \($0)" } ?? "")\(values.isEmpty ? "" : " values \(values)")\(isHidden ? " (hidden)" : ""): \(help)"
        }
    }

    /// `run`'s options, in the order help lists them: the rows the parser works from.
    public static var runOptions: [OptionRow] { rows(run) }

    /// `status`'s options, in the order help lists them: the rows the parser works from.
    public static var statusOptions: [OptionRow] { rows(status) }

    static func rows<O>(_ command: Command<O>) -> [OptionRow] {
        command.specs.map {
            OptionRow(name: $0.name, valueName: $0.valueName, help: $0.help, defaultText: $0.defaultText,
                      values: $0.values, isRequired: command.required.contains($0.name), isHidden: $0.hidden)
        }
    }
}
