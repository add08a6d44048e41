import Foundation

// The property wrappers a command declares its command line with. Each carries its help and
// how its text becomes a typed value; the parser collects them by reflection (`Mirror`), so the
// declaration is the only place an option is named: the code reads the property, and reading
// an option nobody declared does not compile.

/// Where a declared value lands after parsing. A reference, so the copy of a command that was
/// reflected on and filled and the copy that runs share it. Written once, by the parser, before
/// the command runs; read-only afterwards.
final class Slot<Value>: @unchecked Sendable {
    var value: Value?
    /// The name it was parsed under, as the user types it (`--as-of`).
    var display: String?
}

/// What a property wrapper adds to its command's spec.
enum Declaration {
    case option(OptionSpec)
    case positional(PositionalSpec)
}

/// A property wrapper the parser collects from a command.
protocol DeclaredArgument {
    /// Its declarations; `label` is the property's name, the option's name unless one is given.
    func declarations(label: String) -> [Declaration]
    /// Stores the parsed value; a value the parser's text check let through but the type
    /// refuses (a malformed UUID) is an ``OptionError``.
    func fill(from parsed: ParsedCommand, label: String) throws(OptionError)
}

enum Declarations {
    /// The declared arguments of `value` (a command or an option group), in declaration order.
    static func arguments(of value: Any) -> [(label: String, argument: any DeclaredArgument)] {
        Mirror(reflecting: value).children.compactMap { child in
            guard let label = child.label, let argument = child.value as? any DeclaredArgument else { return nil }
            return (label.hasPrefix("_") ? String(label.dropFirst()) : label, argument)
        }
    }

    static func collect(_ value: Any) -> [Declaration] {
        arguments(of: value).flatMap { $0.argument.declarations(label: $0.label) }
    }

    static func fill(_ value: Any, from parsed: ParsedCommand) throws(OptionError) {
        for (label, argument) in arguments(of: value) { try argument.fill(from: parsed, label: label) }
    }

    /// `asOf` → `as-of`, `fcmAppID` → `fcm-app-id`: a property's name as an option's.
    static func optionName(_ label: String) -> String {
        var name = ""
        var previous: Character?
        for character in label {
            if character.isUppercase, let previous, previous.isLowercase || previous.isNumber { name.append("-") }
            name += character.lowercased()
            previous = character
        }
        return name
    }

    static func decode<T: OptionValue>(_ type: T.Type, _ text: String, _ display: String) throws(OptionError) -> T {
        guard let value = T.option(from: text) else {
            throw OptionError("invalid value '\(text)' for '\(display)': expected \(T.optionExpectation)")
        }
        return value
    }

    static func check(_ value: Int, in range: ClosedRange<Int>, _ display: String) throws(OptionError) -> Int {
        guard range.contains(value) else {
            let bounds =
                range.upperBound == Int.max
                ? "at least \(range.lowerBound)" : "between \(range.lowerBound) and \(range.upperBound)"
            throw OptionError("\(display) must be \(bounds), got \(value)")
        }
        return value
    }

    static func valueType<T: OptionValue>(_ type: T.Type, _ choices: [T]?) -> ValueType {
        choices.map { .choice($0.map(\.optionText)) } ?? T.valueType
    }
}

/// A `--name value` option: `@Option(help: "…") var app: String`.
///
/// The property's type says everything else: `T` is required unless it has a default (or its
/// environment variable is set), `T?` may be absent, `[T]` may be repeated. `T` is any
/// ``OptionValue``: text, numbers, dates, durations, weeks, UUIDs, enumerations.
@propertyWrapper
public struct Option<Value: Sendable>: DeclaredArgument, Sendable {
    let name: String?
    let spec: @Sendable (String) -> OptionSpec
    let decode: @Sendable ([String], String) throws(OptionError) -> Value
    let slot = Slot<Value>()

    /// The parsed value; reading it before parsing is a programming error.
    public var wrappedValue: Value {
        guard let value = slot.value else { preconditionFailure("option '\(name ?? "?")' read before parsing") }
        return value
    }

    func declarations(label: String) -> [Declaration] { [.option(spec(name ?? Declarations.optionName(label)))] }

    func fill(from parsed: ParsedCommand, label: String) throws(OptionError) {
        let name = self.name ?? Declarations.optionName(label)
        slot.display = "--\(name)"
        slot.value = try decode(parsed.strings(name), "--\(name)")
    }

    /// `$option`: the option itself, for messages that name it and checks that need more than
    /// its type (`try $threads.within(1...64)`).
    public var projectedValue: Option<Value> { self }

    /// The option as typed on the command line, e.g. `--as-of`.
    public var display: String { slot.display ?? "--\(name ?? "?")" }
}

extension Option where Value == Int {
    /// The value when `range` holds it; else bad usage naming the option and the bounds.
    public func within(_ range: ClosedRange<Int>) throws(OptionError) -> Int {
        try Declarations.check(wrappedValue, in: range, display)
    }

    /// The value when it is at least 1.
    public func positive() throws(OptionError) -> Int { try within(1...Int.max) }
}

extension Option where Value == Int? {
    /// The value, if any, when `range` holds it.
    public func within(_ range: ClosedRange<Int>) throws(OptionError) -> Int? {
        guard let value = wrappedValue else { return nil }
        return try Declarations.check(value, in: range, display)
    }
}

extension Option where Value: OptionValue {
    /// One value; required unless `default` or the `environment` variable gives it.
    /// - Parameters:
    ///   - name: The option's name; default: the property's name in kebab case (`asOf` → `as-of`).
    ///   - choices: The values accepted, when fewer than the type's (an enumeration's subset).
    public init(
        name: String? = nil, short: Character? = nil, help: String, default defaultValue: Value? = nil,
        environment: String? = nil, choices: [Value]? = nil, placeholder: String? = nil
    ) {
        self.name = name
        spec = { name in
            .value(
                name, type: Declarations.valueType(Value.self, choices), help: help, default: defaultValue?.optionText,
                environment: environment, required: defaultValue == nil, short: short, placeholder: placeholder)
        }
        decode = { texts, display throws(OptionError) in
            guard let text = texts.last else { throw OptionError("missing option '\(display)'") }
            return try Declarations.decode(Value.self, text, display)
        }
    }
}

extension Option {
    /// One value or none.
    public init<T: OptionValue>(
        name: String? = nil, short: Character? = nil, help: String, environment: String? = nil, choices: [T]? = nil,
        placeholder: String? = nil
    ) where Value == T? {
        self.name = name
        spec = { name in
            .value(
                name, type: Declarations.valueType(T.self, choices), help: help, environment: environment, short: short,
                placeholder: placeholder)
        }
        decode = { texts, display throws(OptionError) in
            guard let text = texts.last else { return nil }
            return try Declarations.decode(T.self, text, display)
        }
    }

    /// Any number of values: `--domain a --domain b` (from the environment: comma-separated).
    public init<T: OptionValue>(
        name: String? = nil, short: Character? = nil, help: String, default defaultValues: [T] = [],
        environment: String? = nil, choices: [T]? = nil, placeholder: String? = nil
    ) where Value == [T] {
        self.name = name
        spec = { name in
            .repeatable(
                name, type: Declarations.valueType(T.self, choices), help: help,
                default: defaultValues.map(\.optionText),
                environment: environment, short: short, placeholder: placeholder)
        }
        decode = { texts, display throws(OptionError) in
            var values: [T] = []
            for text in texts { values.append(try Declarations.decode(T.self, text, display)) }
            return values
        }
    }
}

/// A `--name` switch: `@Flag(help: "…") var dryRun: Bool`.
@propertyWrapper
public struct Flag: DeclaredArgument, Sendable {
    let name: String?
    let short: Character?
    let help: String
    let environment: String?
    let slot = Slot<Bool>()

    /// Whether it was given (or its environment variable is 1, true or yes).
    public var wrappedValue: Bool {
        guard let value = slot.value else { preconditionFailure("flag '\(name ?? "?")' read before parsing") }
        return value
    }

    /// - Parameter environment: A variable that sets it: 1/true/yes or 0/false/no.
    public init(name: String? = nil, short: Character? = nil, help: String, environment: String? = nil) {
        self.name = name
        self.short = short
        self.help = help
        self.environment = environment
    }

    func declarations(label: String) -> [Declaration] {
        [.option(.flag(name ?? Declarations.optionName(label), help: help, environment: environment, short: short))]
    }

    func fill(from parsed: ParsedCommand, label: String) throws(OptionError) {
        slot.value = parsed.flag(name ?? Declarations.optionName(label))
    }
}

/// A positional argument: `@Argument(help: "…") var file: String` (`T?`: may be absent,
/// `[T]`: all the remaining arguments, declared last).
@propertyWrapper
public struct Argument<Value: Sendable>: DeclaredArgument, Sendable {
    let name: String?
    let spec: @Sendable (String) -> PositionalSpec
    let decode: @Sendable ([String], String) throws(OptionError) -> Value
    let slot = Slot<Value>()

    public var wrappedValue: Value {
        guard let value = slot.value else { preconditionFailure("argument '\(name ?? "?")' read before parsing") }
        return value
    }

    func declarations(label: String) -> [Declaration] { [.positional(spec(name ?? Declarations.optionName(label)))] }

    func fill(from parsed: ParsedCommand, label: String) throws(OptionError) {
        let name = self.name ?? Declarations.optionName(label)
        slot.value = try decode(parsed.positionalList(name), "<\(name)>")
    }
}

extension Argument where Value: OptionValue {
    /// A required argument.
    public init(name: String? = nil, help: String) {
        self.name = name
        spec = { name in PositionalSpec(name, type: Value.valueType, help: help) }
        decode = { texts, display throws(OptionError) in
            guard let text = texts.first else { throw OptionError("missing argument \(display)") }
            return try Declarations.decode(Value.self, text, display)
        }
    }
}

extension Argument {
    /// An argument that may be left out.
    public init<T: OptionValue>(name: String? = nil, help: String) where Value == T? {
        self.name = name
        spec = { name in PositionalSpec(name, type: T.valueType, help: help, optional: true) }
        decode = { texts, display throws(OptionError) in
            guard let text = texts.first else { return nil }
            return try Declarations.decode(T.self, text, display)
        }
    }

    /// Every remaining argument (none is fine).
    public init<T: OptionValue>(name: String? = nil, help: String) where Value == [T] {
        self.name = name
        spec = { name in PositionalSpec(name, type: T.valueType, help: help, optional: true, repeating: true) }
        decode = { texts, display throws(OptionError) in
            var values: [T] = []
            for text in texts { values.append(try Declarations.decode(T.self, text, display)) }
            return values
        }
    }
}

/// Options declared once and shared by several commands: `@OptionGroup var window: WindowOptions`.
@propertyWrapper
public struct OptionGroup<Group: ParsableArguments>: DeclaredArgument, Sendable {
    public let wrappedValue: Group

    public init() { wrappedValue = Group() }

    func declarations(label: String) -> [Declaration] { Declarations.collect(wrappedValue) }

    func fill(from parsed: ParsedCommand, label: String) throws(OptionError) {
        try Declarations.fill(wrappedValue, from: parsed)
    }
}
