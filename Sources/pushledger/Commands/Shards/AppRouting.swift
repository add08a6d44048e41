import CommandLineParsing

/// `--app` of the commands that run on every shard of a sharded deployment.
struct ShardChoice: ParsableArguments {
    @Option(
        help: "With --directory-url: only the shard holding this app (default: every shard, side by side)",
        placeholder: "id")
    var app: String?
}

// The commands about one app: with --directory-url they run on its shard.
extension EraseCommand: AppRouted { var routingApp: String? { app } }
extension TailCommand: AppRouted { var routingApp: String? { app } }
extension TokensInvalidCommand: AppRouted { var routingApp: String? { app } }
extension AppsSetCommand: AppRouted { var routingApp: String? { app } }
extension AppsShowCommand: AppRouted { var routingApp: String? { app } }
extension LinksCheckCommand: AppRouted { var routingApp: String? { app } }
extension QuerySilentLossCommand: AppRouted { var routingApp: String? { app } }
extension ImportSendsCommand: AppRouted { var routingApp: String? { app } }
extension ImportFCMDeliveryDataCommand: AppRouted { var routingApp: String? { app } }
extension ReportWeeklyCommand: AppRouted { var routingApp: String? { app } }
extension ReportProviderCheckCommand: AppRouted { var routingApp: String? { app } }
extension ReportSilentLossCommand: AppRouted { var routingApp: String? { window.app } }
extension ReportPromptTimingCommand: AppRouted { var routingApp: String? { window.app } }
extension ReportRejectionsCommand: AppRouted { var routingApp: String? { window.app } }

// The commands that work on a whole database run on every shard, or on --app's.
extension RollupCommand: AppRouted { var routingApp: String? { shards.app } }
extension RetentionCommand: AppRouted { var routingApp: String? { shards.app } }
extension PartitionsCommand: AppRouted { var routingApp: String? { shards.app } }
extension AlertCheckCommand: AppRouted { var routingApp: String? { shards.app } }
extension AlertListCommand: AppRouted { var routingApp: String? { shards.app } }
