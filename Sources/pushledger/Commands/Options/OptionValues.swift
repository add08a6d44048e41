import CommandLineParsing
import Reports
import Store
import TableRendering

// The product's enumerations as option values: each reads as one of its raw values, and help
// lists them. Declared here, where the command line is the executable's.
extension ReportFormat: OptionValue {}
extension ReportSource: OptionValue {}
extension AlertOutputFormat: OptionValue {}
extension KeyScope: OptionValue {}
extension PartitionGranularity: OptionValue {}
extension TableFormat: OptionValue {}
