module pushledger.dev/sender

go 1.19
