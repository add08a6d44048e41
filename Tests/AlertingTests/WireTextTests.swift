import Foundation
import Testing

@testable import Reports

/// Text that came from devices, shown in a terminal (`pushledger tail`) or posted to a chat
/// webhook: control and format characters are shown escaped, never acted on.
@Suite struct WireTextTests {
    @Test func tailShowsControlAndFormatCharactersEscaped() {
        let line = TailLine(
            receivedAt: Date(timeIntervalSince1970: 0), key: "failed:1", result: "rejected", type: "event",
            installationID: nil, eventID: "\u{1B}[2J\u{7}", detail: "channel=\u{202E}sredro",
            errorCode: "invalid_field",
            message: "invalid field \"x\u{0}\u{1B}]0;pwned\u{7}\"")
        let text = line.text
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{202E}" })
        #expect(text.contains("id=\\u{1B}[2J\\u{7}"))
        #expect(text.contains("channel=\\u{202E}sredro"))
        #expect(text.contains("x\\u{0}\\u{1B}]0;pwned\\u{7}"))
    }

    @Test func slackTextEscapesMentionsAndLinks() {
        #expect(
            AlertText.slackEscaped("channel <!channel> & <http://x|y>")
                == "channel &lt;!channel&gt; &amp; &lt;http://x|y&gt;")
    }
}
