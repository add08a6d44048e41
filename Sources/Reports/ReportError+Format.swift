import OutcomeEngine

extension ReportError {
    static func unsupported(_ format: ReportFormat, report: String) -> ReportError {
        ReportError(kind: .unsupportedFormat, description: "\(report) has no \(format.rawValue) format")
    }
}
