import ArgumentParser
import ForceStageFormats

/// A `Double` option with a default, read as ``DecimalNumber`` reads it (no
/// hexadecimal, inf or nan) and shown in help as `Double` shows its default.
/// (Options without a default use the `DecimalNumber.argument` transform, which
/// swift-argument-parser cannot show a default for.)
public struct DecimalArgument: ExpressibleByArgument, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, Sendable {
    public var value: Double

    public init(_ value: Double) { self.value = value }
    public init(integerLiteral value: Int) { self.value = Double(value) }
    public init(floatLiteral value: Double) { self.value = value }

    public init?(argument: String) {
        guard let value = DecimalNumber.parse(argument) else { return nil }
        self.value = value
    }

    public var defaultValueDescription: String { value.defaultValueDescription }
}
