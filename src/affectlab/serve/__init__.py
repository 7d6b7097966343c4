"""The REST service and web page (``affectlab serve``; extra ``serve``: FastAPI, uvicorn)."""
