"""Rating lists for games federations: domain, MELO formula, tie-breaks and storage."""
