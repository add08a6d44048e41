import Testing

@testable import HTTPClient

@Suite("Response heads, parsed byte by byte")
struct ResponseHeadTests {
    private static func parse(_ text: String) throws(HTTPClientError) -> (Int, [HTTPHeader]) {
        try ResponseHead.parse(Array(text.utf8))
    }

    @Test func statusAndFieldsAsSentWithTheValuesTrimmed() throws {
        let (status, headers) = try Self.parse(
            "HTTP/1.1 429 Too Many Requests\r\nRetry-After:\t 7 \r\ncontent-TYPE: application/json\r\nX-Empty:\r\n\r\n")
        #expect(status == 429)
        #expect(
            headers == [
                HTTPHeader(name: "Retry-After", value: "7"),
                HTTPHeader(name: "content-TYPE", value: "application/json"),
                HTTPHeader(name: "X-Empty", value: ""),
            ])
        let response = HTTPResponse(status: status, headers: headers, body: [])
        #expect(response.header("retry-after") == "7" && response.header("Content-Type") == "application/json")
        #expect(response.header("X-Emptz") == nil && response.header("Retry-Afte") == nil)
        // Only letters fold: '@' (0x40) and '`' (0x60) differ by the same bit.
        let odd = HTTPResponse(status: 200, headers: [HTTPHeader(name: "A@", value: "1")], body: [])
        #expect(odd.header("a@") == "1" && odd.header("A`") == nil)
        #expect(try Self.parse("HTTP/1.0 200\n\n").0 == 200, "bare LF and no reason phrase")
    }

    @Test(arguments: [
        "", "\r\n\r\n", "SMTP ready\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "HTTP/1.1 2000 OK\r\n\r\n",
        "HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
    ])
    func malformedHeadsAreRefused(text: String) {
        #expect(throws: HTTPClientError.self) { try Self.parse(text) }
    }
}
