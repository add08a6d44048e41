import Foundation
import OutcomeEngine
import PushLedgerSupport

/// The JSON rules file of `pushledger alert check --rules FILE`: overrides of the built-in
/// defaults, rule by rule. Rules and settings it doesn't mention keep their defaults; an
/// unknown rule or setting is an error (a typo must not silently leave a default in place).
///
///     {
///       "confirmation_window": "24h",
///       "rules": {
///         "silent_loss_up": {"min_delta_pp": 3, "max_p": 0.005, "min_volume": 500},
///         "opt_in_down": {"recent": "7d", "baseline": "28d"},
///         "rejections_up": {"enabled": false},
///         "ingest_stale": {"threshold": "30m", "retire_after": "7d"}
///       }
///     }
///
/// Durations are written like `90m`, `24h`, `7d` (units w, d, h, m, s).
public enum AlertRulesFile {
    /// Settings every rate rule accepts.
    static let rateSettings: Set<String> = ["enabled", "min_delta_pp", "max_p", "min_volume", "recent", "baseline"]
    /// Settings `ingest_stale` accepts.
    static let staleSettings: Set<String> = ["enabled", "threshold", "retire_after"]

    /// Reads and applies the file at `path` over the built-in rules.
    public static func load(path: String) throws(AlertError) -> AlertRuleSet {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AlertError(.rulesFile, "cannot read rules file \(path)")
        }
        return try parse(data, source: path)
    }

    /// Applies the JSON `data` over the built-in rules.
    public static func parse(_ data: Data, source: String = "rules file") throws(AlertError) -> AlertRuleSet {
        let root: JSONValue
        do {
            root = try JSONParser.parseValue([UInt8](data))
        } catch {
            throw AlertError(.rulesFile, "\(source): not valid JSON (\(error.description))")
        }
        guard case .object(let object) = root else { throw invalid(source, "the top level must be an object") }
        try checkKeys(object, allowed: ["confirmation_window", "rules"], at: "top level", source)
        var set = AlertRuleSet.builtIn
        if let value = object["confirmation_window"] {
            set.confirmationWindow = try span(value, "confirmation_window", source)
        }
        guard let rules = object["rules"] else { return set }
        guard case .object(let rules) = rules else { throw invalid(source, "\"rules\" must be an object") }
        try checkKeys(rules, allowed: Set(AlertRuleKind.allCases.map(\.rawValue)), at: "rules", source)
        for (name, settings) in rules.members.map({ ($0.key, $0.value) }) {
            let kind = AlertRuleKind(rawValue: name)!  // checked above
            guard case .object(let settings) = settings else {
                throw invalid(source, "rule \"\(name)\" must be an object")
            }
            let index = set.rules.firstIndex { $0.kind == kind }!
            set.rules[index] = try apply(settings, to: set.rules[index], source)
        }
        return set
    }

    private static func apply(
        _ settings: PushLedgerSupport.JSONObject, to base: AlertRule, _ source: String
    ) throws(AlertError) -> AlertRule {
        let name = base.kind.rawValue
        try checkKeys(
            settings, allowed: base.kind == .ingestStale ? staleSettings : rateSettings, at: "rule \"\(name)\"", source)
        var rule = base
        for (key, value) in settings.members.map({ ($0.key, $0.value) }) {
            let path = "\(name).\(key)"
            switch key {
            case "enabled":
                guard case .bool(let flag) = value else { throw invalid(source, "\(path) must be true or false") }
                rule.enabled = flag
            case "min_delta_pp":
                rule.minDeltaPoints = try number(value, path, source, in: 0...100)
            case "max_p":
                rule.maxP = try number(value, path, source, in: Double.leastNonzeroMagnitude...1)
            case "min_volume":
                let volume = try number(value, path, source, in: 1...1e12)
                guard volume == volume.rounded() else { throw invalid(source, "\(path) must be a whole number") }
                rule.minVolume = Int(volume)
            case "recent": rule.recent = try span(value, path, source)
            case "baseline": rule.baseline = try span(value, path, source)
            case "threshold": rule.threshold = try span(value, path, source)
            default: rule.retireAfter = try span(value, path, source)  // "retire_after", the only key left
            }
        }
        if rule.kind == .ingestStale, rule.retireAfter <= rule.threshold {
            throw invalid(source, "\(name).retire_after must be longer than its threshold")
        }
        return rule
    }

    /// Unknown and repeated keys are errors: either would leave a setting other than intended.
    private static func checkKeys(
        _ object: PushLedgerSupport.JSONObject, allowed: Set<String>, at place: String, _ source: String
    ) throws(AlertError) {
        if let unknown = object.members.map(\.key).first(where: { !allowed.contains($0) }) {
            let what = place == "rules" ? "rule" : "setting"
            throw invalid(
                source,
                "unknown \(what) \"\(unknown)\" at \(place) (allowed: \(allowed.sorted().joined(separator: ", ")))")
        }
        if let repeated = object.firstDuplicateKey {
            throw invalid(source, "\"\(repeated)\" is given twice at \(place)")
        }
    }

    private static func number(
        _ value: JSONValue, _ path: String, _ source: String, in range: ClosedRange<Double>
    ) throws(AlertError) -> Double {
        guard case .number(let json) = value, case let number = json.doubleValue, range.contains(number) else {
            throw invalid(
                source,
                "\(path) must be a number in \(range.lowerBound == 0 ? "[0" : "(0"), \(range.upperBound.formatted())]")
        }
        return number
    }

    private static func span(_ value: JSONValue, _ path: String, _ source: String) throws(AlertError) -> TimeSpan {
        guard case .string(let text) = value else {
            throw invalid(source, "\(path) must be a duration like \"24h\" or \"7d\"")
        }
        let span: TimeSpan
        do {
            span = try TimeSpan(parsing: text)
        } catch {
            throw invalid(source, "\(path): \(error.description)")
        }
        guard span.seconds > 0 else { throw invalid(source, "\(path) must be longer than 0s") }
        return span
    }

    private static func invalid(_ source: String, _ message: String) -> AlertError {
        AlertError(.rulesFile, "\(source): \(message)")
    }
}
