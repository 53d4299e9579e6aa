import { defineGroup, noContent } from '../route-definition';
import * as products from '../../schemas/products';

/** The `products` group's routes (the function `functions/products/handler.ts` serves them); the whole table is shared/service/http/routes.ts. */
export const productRoutes = defineGroup('products', [
  // Products
  {
    operationId: 'listProducts',
    method: 'GET',
    path: '/api/products',
    scope: 'products:read',
    mutates: false,
    summary: "List the team's products (paged; `search` matches name or slug, case-insensitive)",
    request: { query: products.productListQuery },
    responses: { 200: { description: 'Paged products', schema: products.productListResponse } },
  },
  {
    operationId: 'createProduct',
    method: 'POST',
    path: '/api/products',
    scope: 'products:write',
    mutates: true,
    summary: 'Create a product',
    request: { body: products.createProductBody },
    responses: { 201: { description: 'Created', schema: products.productResponse } },
  },
  {
    operationId: 'getProduct',
    method: 'GET',
    path: '/api/products/{productId}',
    scope: 'products:read',
    mutates: false,
    summary: 'Read a product',
    request: { params: products.productIdParams },
    responses: { 200: { description: 'The product', schema: products.productResponse } },
  },
  {
    operationId: 'updateProduct',
    method: 'PUT',
    path: '/api/products/{productId}',
    scope: 'products:write',
    mutates: true,
    summary: 'Update a product; only supplied fields change',
    request: { params: products.productIdParams, body: products.updateProductBody },
    responses: { 200: { description: 'Updated', schema: products.productResponse } },
  },
  {
    operationId: 'deleteProduct',
    method: 'DELETE',
    path: '/api/products/{productId}',
    scope: 'products:write',
    mutates: true,
    summary: 'Delete a product and everything under it (published disclosures survive)',
    request: { params: products.productIdParams },
    responses: noContent,
  },
]);
