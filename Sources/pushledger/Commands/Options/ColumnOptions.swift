import CommandLineParsing
import Foundation
import TableRendering

/// `--columns` and `--wide`, for every command that prints a terminal table.
struct ColumnOptions: ParsableArguments {
    @Option(help: "Terminal table columns to show, by name (default: the key columns)", placeholder: "a,b,c")
    var columns: String?

    @Flag(help: "Show every column of terminal tables")
    var wide: Bool

    /// The choice they make; both at once is bad usage.
    func choice() throws(OptionError) -> ColumnChoice {
        let names = (columns ?? "").split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        if wide {
            guard names.isEmpty else { throw OptionError("give --columns or --wide, not both") }
            return .all
        }
        return names.isEmpty ? .key : .named(names)
    }
}
