print("agentctl")
