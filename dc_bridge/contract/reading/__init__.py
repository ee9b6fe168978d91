"""Reading a contract: its files, variables, and the two standards (DCS, ODCS) into one model."""
