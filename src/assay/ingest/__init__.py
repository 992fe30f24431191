"""Ingestion: read files, follow their structure into chunks, embed and store them."""
