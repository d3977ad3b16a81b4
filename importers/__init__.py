"""Readers for the files a rating officer receives. They read and check; they never write to the database."""
