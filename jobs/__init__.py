"""The use cases: importing, rating, publishing, the registry, backups, the site's accounts and
submissions, and the reads the command line and the site need; each job one transaction. The
scheduler and the command line that run them are ``service``'s."""
