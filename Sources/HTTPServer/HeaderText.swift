extension StringProtocol {
    /// Without leading and trailing spaces and tabs: HTTP's optional whitespace around header
    /// values. Foundation's `trimmingCharacters(in:)` goes through NSString on Linux, a cost on
    /// every request that `make bench` measures.
    public var trimmingHeaderWhitespace: SubSequence {
        let isOWS: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isOWS($0) }), let last = lastIndex(where: { !isOWS($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
