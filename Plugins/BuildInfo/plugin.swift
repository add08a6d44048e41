import Foundation
import PackagePlugin

/// Writes BuildInfo.swift into the build folder (the release from `VERSION` and the git commit)
/// before every build of the target it is applied to, so a plain `swift build` stamps the binary.
/// The work is scripts/build-info.sh's: it rewrites the file only when its text changes, and
/// without git (a source archive) the commit reads "unknown".
@main
struct BuildInfo: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        return [
            .prebuildCommand(
                displayName: "Build info from VERSION and git",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [root.appending(path: "scripts/build-info.sh").path, root.path, output.path],
                outputFilesDirectory: output)
        ]
    }
}
