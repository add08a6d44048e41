print("pushledger")
