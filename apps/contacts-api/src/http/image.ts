import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';
import type { ContactImageInput } from '../domain/contacts';
import { readUploadedFile, type UploadedFile } from './multipart';

export const IMAGE_MESSAGE = 'The image must be a JPEG or PNG file.';

/**
 * The image's real type, read from its first bytes: the declared content type and the file
 * name are the client's claims and prove nothing. Undefined when it is neither JPEG nor PNG, or
 * when its header does not say how large it is: a file cut off after its signature (an upload
 * that broke off, six bytes named .jpg) would be stored, and then shown broken by every client.
 */
export async function sniffImage(file: UploadedFile): Promise<ContactImageInput | undefined> {
  const bytes = await readUploadedFile(file);
  const type = await fileTypeFromBuffer(bytes);
  if (type?.mime !== 'image/jpeg' && type?.mime !== 'image/png') return undefined;
  if (!hasDimensions(bytes)) return undefined;
  return { contentType: type.mime, bytes };
}

function hasDimensions(bytes: Buffer): boolean {
  // image-size reads through a view of the whole ArrayBuffer, so from a Buffer that is a slice of
  // a larger one (Node's pool holds small ones) it reads past the end: a PNG cut off after 16 bytes
  // was measured 1×1 from the bytes after it. It is given bytes of their own.
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
  try {
    const { width, height } = imageSize(own);
    return width > 0 && height > 0;
  } catch {
    // image-size throws on a header it cannot read to the end.
    return false;
  }
}
