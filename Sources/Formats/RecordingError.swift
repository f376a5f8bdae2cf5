/// A problem with a recording, a profile or another input file: which file,
/// which key, what is wrong and what to do. Printed as one line.
public struct InputError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file at fault.
    public var file: String
    /// The key (a dotted JSON path such as `channels[1].format`), if one is at fault.
    public var key: String?
    /// The line, for text formats that have lines.
    public var line: Int?
    /// What is wrong.
    public var problem: String
    /// What to do about it.
    public var hint: String

    public init(file: String, key: String? = nil, line: Int? = nil, problem: String, hint: String) {
        self.file = file
        self.key = key
        self.line = line
        self.problem = problem
        self.hint = hint
    }

    public var description: String {
        var where_ = file
        if let line { where_ += ":\(line)" }
        if let key { where_ += ": \(key)" }
        return "\(where_): \(problem); \(hint)"
    }
}
