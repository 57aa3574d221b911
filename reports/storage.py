"""Where the pipeline reads and writes: a local path, or any URI a Spark file system takes
(file://, hdfs://, s3a://, abfss://, ...). Spark gets every location as a URI (a local path
gets its file:// scheme); the driver lists run folders and reads manifests through Python
for file:// and through Spark's own Hadoop file system for anything else, so an input on
HDFS or object storage needs nothing on the driver's disk.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:")  # two letters at least: C:\ is a path


def to_uri(location) -> str:
    """A URI for Spark: a local path (relative or absolute) becomes file:///abs/path."""
    text = str(location)
    if _SCHEME.match(text):
        return text if text.endswith(":///") else text.rstrip("/")
    return Path(text).resolve().as_uri()


def is_local(uri: str) -> bool:
    return urlparse(uri).scheme == "file"


def local_path(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path))


def path_key(uri: str) -> str:
    """The path of a location without its scheme and authority, decoded: what
    pipeline.file_key makes of the file path Spark reports for a file it read."""
    return unquote(urlparse(uri).path) if _SCHEME.match(uri) else str(Path(uri).resolve())


def join(uri: str, *parts: str) -> str:
    return "/".join([uri.rstrip("/"), *parts])


class Store:
    """The few file operations the driver needs, on any URI."""

    def __init__(self, spark=None):
        self.spark = spark

    def _fs(self, uri: str):
        jvm = self.spark.sparkContext._jvm
        path = jvm.org.apache.hadoop.fs.Path(uri)
        return path.getFileSystem(self.spark.sparkContext._jsc.hadoopConfiguration()), path

    def _need_spark(self, uri: str) -> None:
        if self.spark is None:
            raise ValueError(f"{uri}: not a local path; Spark's file systems read it once the session starts")

    def exists(self, uri: str) -> bool:
        if is_local(uri):
            return local_path(uri).exists()
        self._need_spark(uri)
        fs, path = self._fs(uri)
        return fs.exists(path)

    def is_file(self, uri: str) -> bool:
        if is_local(uri):
            return local_path(uri).is_file()
        self._need_spark(uri)
        fs, path = self._fs(uri)
        return fs.exists(path) and fs.getFileStatus(path).isFile()

    def is_dir(self, uri: str) -> bool:
        if is_local(uri):
            return local_path(uri).is_dir()
        self._need_spark(uri)
        fs, path = self._fs(uri)
        return fs.exists(path) and fs.getFileStatus(path).isDirectory()

    def dirs(self, uri: str) -> list[str]:
        """The folders directly inside a folder, as URIs, sorted."""
        if is_local(uri):
            return sorted(p.as_uri() for p in local_path(uri).iterdir() if p.is_dir())
        self._need_spark(uri)
        fs, path = self._fs(uri)
        return sorted(join(uri, s.getPath().getName()) for s in fs.listStatus(path) if s.isDirectory())

    def read_text(self, uri: str) -> str:
        if is_local(uri):
            return local_path(uri).read_text()
        self._need_spark(uri)
        fs, path = self._fs(uri)
        stream = fs.open(path)
        try:
            jvm = self.spark.sparkContext._jvm
            return jvm.org.apache.commons.io.IOUtils.toString(stream, "UTF-8")
        finally:
            stream.close()

    def remove(self, uri: str) -> None:
        if is_local(uri):
            shutil.rmtree(local_path(uri), ignore_errors=True)
            return
        self._need_spark(uri)
        fs, path = self._fs(uri)
        fs.delete(path, True)

    def rename(self, source: str, target: str) -> None:
        if is_local(source):
            local_path(source).rename(local_path(target))
            return
        self._need_spark(source)
        fs, path = self._fs(source)
        if not fs.rename(path, self._fs(target)[1]):
            raise OSError(f"could not move {source} to {target}")

    def files(self, uri: str, suffix: str = ".parquet") -> list[int]:
        """The sizes of the data files under a folder (recursively)."""
        if is_local(uri):
            root = local_path(uri)
            return [p.stat().st_size for p in root.rglob(f"*{suffix}")] if root.exists() else []
        self._need_spark(uri)
        fs, path = self._fs(uri)
        if not fs.exists(path):
            return []
        found, listing = [], fs.listFiles(path, True)
        while listing.hasNext():
            status = listing.next()
            if status.getPath().getName().endswith(suffix):
                found.append(status.getLen())
        return found
