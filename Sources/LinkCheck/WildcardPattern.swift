/// A pattern of an association file: `*` matches any run of characters (also none, also `/`),
/// `?` matches exactly one character, everything else matches itself. Apple's `components`
/// and legacy `paths` use this form.
public struct WildcardPattern: Sendable, Hashable, CustomStringConvertible {
    public let text: String
    public let caseSensitive: Bool

    public init(_ text: String, caseSensitive: Bool = true) {
        self.text = text
        self.caseSensitive = caseSensitive
    }

    public var description: String { text }

    /// Whether the whole of `subject` matches (not a prefix or a substring).
    public func matches(_ subject: String) -> Bool {
        let p = Array(caseSensitive ? text : text.lowercased())
        let s = Array(caseSensitive ? subject : subject.lowercased())
        // Iterative matcher with one backtrack point for the last `*`: linear in practice and
        // never exponential, so a hostile file cannot stall the checker.
        var (pi, si) = (0, 0)
        var star: Int? = nil
        var resume = 0
        while si < s.count {
            if pi < p.count, p[pi] == "?" || (p[pi] != "*" && p[pi] == s[si]) {
                pi += 1
                si += 1
            } else if pi < p.count, p[pi] == "*" {
                star = pi
                resume = si
                pi += 1
            } else if let st = star {
                pi = st + 1
                resume += 1
                si = resume
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
