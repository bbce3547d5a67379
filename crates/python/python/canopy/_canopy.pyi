# Type stubs of the compiled module (crates/python/src); the docstrings are
# on the functions themselves (help(canopy.extract)).
from os import PathLike
from canopy import SiteResult
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

_Html = Union[bytes, bytearray, memoryview, str]
_Path = Union[str, "PathLike[str]"]
_Record = Dict[str, Any]

__version__: str

class CanopyError(Exception):
    reason: str
    stage: Optional[str]
    url: Optional[str]
    record_id: Optional[str]

def extract(
    html: _Html,
    url: Optional[str] = None,
    content_type: Optional[str] = None,
    **settings: Any,
) -> Optional[_Record]: ...
def extract_many(
    pages: Iterable[Tuple[_Html, Optional[str]]], **settings: Any
) -> List[Union[_Record, CanopyError, None]]: ...
def extract_site(pages: Iterable[Any], **settings: Any) -> Dict[str, List[_Record]]: ...
def check_settings(**settings: Any) -> None: ...
def site_key(url: str) -> str: ...
def run(inputs: Union[_Path, Sequence[_Path]], out: _Path, **settings: Any) -> Dict[str, Any]: ...
def read_warc(path: _Path, **settings: Any) -> WarcRecords: ...

class WarcRecords(Iterator[_Record]):
    def __iter__(self) -> WarcRecords: ...
    def __next__(self) -> _Record: ...

class Wrappers:
    @staticmethod
    def load(path: _Path, **settings: Any) -> Wrappers: ...
    def apply(
        self, url: str, html: _Html, content_type: Optional[str] = None
    ) -> Optional[_Record]: ...
    def apply_site(self, pages: Iterable[Any]) -> SiteResult: ...
